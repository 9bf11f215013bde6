package io.leasehold.micrometer;

import io.leasehold.lease.AccessPolicy;
import io.leasehold.lease.LeaseStore;
import java.time.Duration;
import javax.sql.DataSource;

/** The stores the metrics and observation tests watch. */
final class TestStores {
  private TestStores() {}

  /** A store whose kept leases last 3 s and are renewed at {@code renewInterval}. */
  static LeaseStore renewing(DataSource dataSource, Duration renewInterval) {
    return LeaseStore.builder(dataSource)
        .accessPolicy(AccessPolicy.allowAll())
        .ttl(Duration.ofSeconds(3))
        .renewInterval(renewInterval)
        .build();
  }
}
