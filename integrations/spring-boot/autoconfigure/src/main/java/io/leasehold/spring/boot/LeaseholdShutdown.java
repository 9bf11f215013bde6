package io.leasehold.spring.boot;

import io.leasehold.lease.LeaseStore;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.SmartLifecycle;

/**
 * Closes the context's lease stores when the context stops. Closing a store releases the leases it
 * keeps, so another process takes the sessions over at once instead of waiting out the TTL.
 *
 * <p>Lifecycle beans stop before any bean is destroyed, so the stores close while the {@code
 * DataSource} is still open (releasing needs it). The phase is below the web server's, so requests
 * in flight (which may hold leases) have finished when the stores close.
 */
public final class LeaseholdShutdown implements SmartLifecycle {
  /** Below the web server's graceful shutdown and its stop: stopped after them. */
  public static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 4096;

  private final ObjectProvider<LeaseStore> stores;
  private volatile boolean running;

  LeaseholdShutdown(ObjectProvider<LeaseStore> stores) {
    this.stores = stores;
  }

  @Override
  public void start() {
    running = true;
  }

  @Override
  public void stop() {
    running = false;
    stores.orderedStream().forEach(LeaseStore::close);
  }

  @Override
  public boolean isRunning() {
    return running;
  }

  @Override
  public int getPhase() {
    return PHASE;
  }
}
