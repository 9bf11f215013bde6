package io.leasehold.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.fencing.LeaseKey;
import io.leasehold.lease.AccessPolicy;
import io.leasehold.lease.AcquireResult;
import io.leasehold.lease.Lease;
import io.leasehold.lease.LeaseSchema;
import io.leasehold.lease.LeaseStore;
import io.leasehold.testing.TestDatabaseExtension;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The meters after real acquires, refusals, renewals and a loss, on PostgreSQL. */
class LeaseholdMetricsTest {
  @RegisterExtension
  static final TestDatabaseExtension db =
      TestDatabaseExtension.withTemplate("lease", ds -> LeaseSchema.defaults().apply(ds));

  private static double count(SimpleMeterRegistry r, String name, String tag, String value) {
    return r.get(name).tag(tag, value).meters().stream()
        .mapToDouble(m -> m.measure().iterator().next().getValue())
        .sum();
  }

  @Test
  void acquireOutcomesRenewalsAndLossesAreCounted() throws Exception {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    LeaseKey key = LeaseKey.of("acct", "metered");
    try (LeaseStore store = TestStores.renewing(db.dataSource(), Duration.ofMillis(200));
        LeaseStore rival =
            LeaseStore.builder(db.dataSource()).accessPolicy(AccessPolicy.allowAll()).build()) {
      AutoCloseable metrics = LeaseholdMetrics.bind(store, registry);
      assertThat(registry.get("leasehold.keeper.lag").gauge().value()).isNaN();

      Lease lease = ((AcquireResult.Acquired) store.tryAcquire(key, "acct")).lease().keepAlive();
      assertThat(store.tryAcquire(key, "acct")).isInstanceOf(AcquireResult.Busy.class);
      assertThat(registry.get("leasehold.acquire").tag("outcome", "acquired").timer().count())
          .isEqualTo(1);
      assertThat(registry.get("leasehold.acquire").tag("outcome", "busy").timer().count())
          .isEqualTo(1);
      assertThat(
              registry
                  .get("leasehold.acquire")
                  .tag("outcome", "acquired")
                  .timer()
                  .totalTime(TimeUnit.NANOSECONDS))
          .isPositive();
      assertThat(registry.get("leasehold.leases.kept").gauge().value()).isEqualTo(1.0);

      // The keeper renews: rounds are timed and the lag gauge starts to read.
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
      while (registry.get("leasehold.renewal").timer().count() == 0) {
        assertThat(System.nanoTime()).as("no renewal round was recorded").isLessThan(deadline);
        Thread.sleep(20);
      }
      assertThat(registry.get("leasehold.keeper.lag").gauge().value())
          .isNotNaN()
          .isGreaterThanOrEqualTo(0.0);

      // A rival takes the session over after an expiry: the next renewal finds the lease lost.
      db.database()
          .execute(
              "UPDATE leasehold_lease SET expires_at = clock_timestamp() - interval '1 ms'"
                  + " WHERE session_id = 'metered'");
      assertThat(rival.tryAcquire(key, "acct")).isInstanceOf(AcquireResult.Acquired.class);
      lease.whenLost().get(20, TimeUnit.SECONDS);
      assertThat(count(registry, "leasehold.leases.lost", "reason", "renewal_refused"))
          .isEqualTo(1.0);
      assertThat(registry.get("leasehold.leases.kept").gauge().value()).isZero();

      metrics.close();
      assertThat(registry.find("leasehold.acquire").meters()).isEmpty();
      store.tryAcquire(LeaseKey.of("acct", "after-close"), "acct");
      assertThat(registry.getMeters()).isEmpty();
    }
  }

  @Test
  void badArgumentsAreRefused() {
    try (LeaseStore store =
        LeaseStore.builder(db.dataSource()).accessPolicy(AccessPolicy.allowAll()).build()) {
      org.assertj.core.api.Assertions.assertThatThrownBy(() -> LeaseholdMetrics.bind(store, null))
          .isInstanceOf(IllegalArgumentException.class);
      org.assertj.core.api.Assertions.assertThatThrownBy(
              () -> LeaseholdMetrics.bind(null, new SimpleMeterRegistry()))
          .isInstanceOf(IllegalArgumentException.class);
    }
  }
}
