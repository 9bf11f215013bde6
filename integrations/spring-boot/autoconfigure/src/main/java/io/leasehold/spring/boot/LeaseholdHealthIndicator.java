package io.leasehold.spring.boot;

import io.leasehold.lease.FailoverSafety;
import io.leasehold.lease.LeaseStore;
import java.time.Duration;
import java.util.Optional;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * Health of a lease store: DOWN when its database cannot be read through the lease table
 * (unreachable, schema missing, no privilege), or when it keeps leases and its keeper has not
 * completed a renewal round for longer than the allowed lag (the leases are about to be lost).
 * Details: the database time, the kept leases, the keeper lag, and whether the database keeps
 * leases across a failover ({@link io.leasehold.lease.LeaseAdmin#failoverSafety()}; reported, never
 * DOWN by itself).
 */
public final class LeaseholdHealthIndicator extends AbstractHealthIndicator {
  private final LeaseStore store;
  private final Duration maxKeeperLag;

  /**
   * A health indicator for a store.
   *
   * @param store the store
   * @param maxKeeperLag keeper lag past which health is DOWN while leases are kept
   */
  public LeaseholdHealthIndicator(LeaseStore store, Duration maxKeeperLag) {
    super("Leasehold health check failed");
    if (store == null
        || maxKeeperLag == null
        || maxKeeperLag.isNegative()
        || maxKeeperLag.isZero()) {
      throw new IllegalArgumentException("store and a positive maxKeeperLag are required");
    }
    this.store = store;
    this.maxKeeperLag = maxKeeperLag;
  }

  @Override
  protected void doHealthCheck(Health.Builder builder) {
    builder.withDetail("databaseTime", store.databaseTime().toString());
    int kept = store.keptLeaseCount();
    builder.withDetail("keptLeases", kept);
    Optional<Duration> lag = store.keeperLag();
    lag.ifPresent(l -> builder.withDetail("keeperLagMs", l.toMillis()));
    builder.withDetail("maxKeeperLagMs", maxKeeperLag.toMillis());
    // Reported, not judged: an unsafe replication setup does not stop this instance from working.
    FailoverSafety safety = store.admin().failoverSafety();
    builder.withDetail("failoverSafe", safety.isSafe());
    if (!safety.isSafe()) {
      builder.withDetail("failoverWarnings", safety.warnings());
    }
    if (kept > 0 && lag.isPresent() && lag.get().compareTo(maxKeeperLag) > 0) {
      builder
          .down()
          .withDetail(
              "reason",
              "the keeper has not renewed for longer than "
                  + maxKeeperLag
                  + "; kept leases are about to be lost (is the database slow or unreachable?)");
    } else {
      builder.up();
    }
  }
}
