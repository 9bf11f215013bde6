package io.leasehold.spring.boot;

import io.leasehold.lease.LeaseStore;
import io.leasehold.micrometer.LeaseholdMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.ArrayList;
import java.util.List;

/**
 * The lease stores' meters (see {@code LeaseholdMetrics}), bound to the application's registry
 * and removed when the context closes. Binds nothing when there is no registry.
 */
public final class LeaseholdMeters implements AutoCloseable {
  private final List<AutoCloseable> bindings;

  private LeaseholdMeters(List<AutoCloseable> bindings) {
    this.bindings = bindings;
  }

  static LeaseholdMeters bind(MeterRegistry registry, List<LeaseStore> stores) {
    List<AutoCloseable> bindings = new ArrayList<>();
    if (registry != null) {
      for (LeaseStore store : stores) {
        bindings.add(LeaseholdMetrics.bind(store, registry));
      }
    }
    return new LeaseholdMeters(List.copyOf(bindings));
  }

  /**
   * How many stores are measured.
   *
   * @return the number of bound stores
   */
  public int boundStores() {
    return bindings.size();
  }

  /** Removes the meters from the registry. */
  @Override
  public void close() {
    for (AutoCloseable b : bindings) {
      try {
        b.close();
      } catch (Exception e) {
        throw new IllegalStateException("could not unbind Leasehold meters", e);
      }
    }
  }
}
