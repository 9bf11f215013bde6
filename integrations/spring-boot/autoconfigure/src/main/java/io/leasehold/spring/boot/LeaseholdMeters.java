package io.leasehold.spring.boot;

import io.leasehold.lease.LeaseStore;
import io.leasehold.micrometer.LeaseholdMetrics;
import io.leasehold.micrometer.LeaseholdObservations;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import java.util.ArrayList;
import java.util.List;

/**
 * The lease stores' meters (see {@code LeaseholdMetrics}) and observations (see {@code
 * LeaseholdObservations}), bound to the application's meter and observation registries and unbound
 * when the context closes. Binds nothing for a registry the application does not have.
 */
public final class LeaseholdMeters implements AutoCloseable {
  private final List<AutoCloseable> bindings;

  private LeaseholdMeters(List<AutoCloseable> bindings) {
    this.bindings = bindings;
  }

  static LeaseholdMeters bind(
      MeterRegistry registry, ObservationRegistry observations, List<LeaseStore> stores) {
    List<AutoCloseable> bindings = new ArrayList<>();
    for (LeaseStore store : stores) {
      if (registry != null) {
        bindings.add(LeaseholdMetrics.bind(store, registry));
      }
      if (observations != null && !observations.isNoop()) {
        bindings.add(LeaseholdObservations.bind(store, observations));
      }
    }
    return new LeaseholdMeters(List.copyOf(bindings));
  }

  /**
   * How many bindings (a store to a meter or an observation registry) are active.
   *
   * @return the number of bindings
   */
  public int bindings() {
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
