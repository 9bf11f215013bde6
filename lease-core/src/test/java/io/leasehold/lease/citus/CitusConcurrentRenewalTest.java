package io.leasehold.lease.citus;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.fencing.LeaseKey;
import io.leasehold.lease.AccessPolicy;
import io.leasehold.lease.BatchRenewal;
import io.leasehold.lease.Lease;
import io.leasehold.lease.LeaseSchema;
import io.leasehold.lease.LeaseStore;
import io.leasehold.testing.TestDatabaseExtension;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A batch renewal spans shards, and Citus lets one multi-shard modification at a time touch a shard
 * unless {@code citus.enable_deadlock_prevention} is off: with it on, a store's renewal waited for
 * another multi-shard modification of the lease table (its own second chunk, another process's
 * renewal) and ended at the lock timeout, losing every lease it named. Here another transaction
 * holds such a modification open while the store renews leases on every shard: every lease is
 * renewed. Runs on the coordinator named by {@code LEASEHOLD_CITUS_URL}, skipped without it
 * (docs/scale-out.md).
 */
class CitusConcurrentRenewalTest {
  @RegisterExtension
  static final TestDatabaseExtension db =
      TestDatabaseExtension.citus(ds -> LeaseSchema.defaults().apply(ds));

  private static final int LEASES = 64;

  @Test
  void aRenewalDoesNotWaitForAnotherMultiShardModification() throws Exception {
    try (LeaseStore store =
        LeaseStore.builder(db.dataSource())
            .accessPolicy(AccessPolicy.allowAll())
            .ttl(Duration.ofSeconds(30))
            .lockTimeout(Duration.ofMillis(500))
            .build()) {
      List<Lease> leases = new ArrayList<>();
      for (int i = 0; i < LEASES; i++) {
        // One account each, so that they fall on many shards of both workers.
        LeaseKey key = LeaseKey.of("renewing-" + i, "session");
        leases.add(store.tryAcquire(key, key.accountId()).acquiredLease().orElseThrow());
      }
      assertThat(
              db.database()
                  .queryOne(
                      "SELECT count(DISTINCT s.shardid) FROM pg_dist_shard s"
                          + " JOIN pg_dist_placement p USING (shardid)"
                          + " WHERE s.logicalrelid = 'leasehold_lease'::regclass",
                      Long.class))
          .isGreaterThan(1L);
      try (Connection other = db.dataSource().getConnection();
          Statement s = other.createStatement()) {
        other.setAutoCommit(false);
        // A multi-shard modification of other rows, left open: it holds Citus's shard locks of
        // every shard until it ends, as a long renewal statement does.
        s.execute("UPDATE leasehold_lease SET holder = holder WHERE account_id LIKE 'other-%'");
        long started = System.nanoTime();
        BatchRenewal renewed = store.renewAll(leases);
        Duration took = Duration.ofNanos(System.nanoTime() - started);
        other.rollback();
        assertThat(renewed.renewed()).isEqualTo(LEASES);
        assertThat(renewed.lost()).isEmpty();
        System.out.println(
            "renewed " + LEASES + " leases beside an open multi-shard update in " + took);
      }
      for (Lease l : leases) {
        l.release();
      }
    }
  }
}
