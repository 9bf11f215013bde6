package io.leasehold.lease.renew;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.leasehold.fencing.LeaseKey;
import io.leasehold.lease.AccessPolicy;
import io.leasehold.lease.AcquireResult;
import io.leasehold.lease.BatchRenewal;
import io.leasehold.lease.Lease;
import io.leasehold.lease.LeaseStore;
import io.leasehold.lease.ReleaseResult;
import io.leasehold.lease.StoreInternals;
import io.leasehold.lease.support.LeaseDatabase;
import io.leasehold.testing.TestDatabaseExtension;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Batch renewal: 10,000 leases renewed in one statement, exactly the live ones (CONTRACT C4). */
class BatchRenewalTest {
  @RegisterExtension static final TestDatabaseExtension db = LeaseDatabase.extension();

  @Test
  void renewsExactlyTheLiveLeasesOfTenThousand() throws Exception {
    int n = 10_000;
    try (LeaseStore store =
            LeaseDatabase.store(db, AccessPolicy.allowAll(), Duration.ofMinutes(5));
        LeaseStore rival =
            LeaseStore.builder(db.dataSource()).accessPolicy(AccessPolicy.allowAll()).build()) {
      List<Lease> leases =
          IntStream.range(0, n)
              .parallel()
              .mapToObj(i -> store.tryAcquire(LeaseKey.of("bulk", "s" + i), "bulk"))
              .map(r -> ((AcquireResult.Acquired) r).lease())
              .collect(Collectors.toList());

      // Make 300 of them stale in three ways: taken over after expiry, expired, released.
      db.database()
          .execute(
              "UPDATE leasehold_lease SET expires_at = statement_timestamp() - interval '1 ms'"
                  + " WHERE account_id = 'bulk' AND substring(session_id from 2)::int < 200");
      Set<UUID> takenOver = new HashSet<>();
      for (int i = 0; i < 100; i++) {
        takenOver.add(
            ((AcquireResult.Acquired) rival.tryAcquire(LeaseKey.of("bulk", "s" + i), "bulk"))
                .lease()
                .runId());
      }
      for (int i = 200; i < 300; i++) {
        assertThat(store.release(leases.get(i).identity(), "app").outcome())
            .isEqualTo(ReleaseResult.Outcome.RELEASED);
      }
      Set<UUID> stale = new HashSet<>();
      for (int i = 0; i < 300; i++) {
        stale.add(leases.get(i).runId());
      }

      BatchRenewal result = store.renewAll(leases);

      assertThat(result.renewed()).isEqualTo(n - 300);
      assertThat(result.lost().stream().map(Lease::runId).collect(Collectors.toSet()))
          .isEqualTo(stale);
      for (Lease l : leases) {
        assertThat(l.isLost()).isEqualTo(stale.contains(l.runId()));
      }
      List<Object> counts =
          db.database()
              .query(
                  "SELECT count(*) FILTER (WHERE renewed_at > acquired_at),"
                      + " count(*) FILTER (WHERE renewed_at > acquired_at AND"
                      + "   substring(session_id from 2)::int < 300 AND released_at IS NULL"
                      + "   AND expires_at < clock_timestamp())"
                      + " FROM leasehold_lease WHERE account_id = 'bulk'")
              .get(0);
      assertThat(counts.get(0)).isEqualTo((long) n - 300);
      assertThat(counts.get(1)).as("expired leases renewed").isEqualTo(0L);
      // The rivals' leases are untouched by the stale runs' renewal.
      Set<Object> untouched =
          db
              .database()
              .query(
                  "SELECT run_id FROM leasehold_lease WHERE account_id = 'bulk'"
                      + " AND substring(session_id from 2)::int < 100 AND renewed_at = acquired_at")
              .stream()
              .map(row -> row.get(0))
              .collect(Collectors.toSet());
      assertThat(untouched).isEqualTo(takenOver);
    }
  }

  /**
   * More than one chunk: two statements at once, the second on the store's scheduler. Stale leases
   * spread over every chunk are lost, and every renewed lease's new expiry (computed from the
   * statement's time and its position) is exactly the database's.
   */
  @Test
  void renewsThreeChunksTwoAtATimeWithExactExpiries() throws Exception {
    int n = 2 * StoreInternals.RENEWAL_CHUNK + 5_000;
    ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(3);
    try (LeaseStore store = storeOn(scheduler)) {
      List<Lease> leases = acquireMany(store, "chunks", n);
      Set<UUID> stale = new HashSet<>();
      for (int i = 0; i < n; i += 997) {
        store.release(leases.get(i).identity(), "app");
        stale.add(leases.get(i).runId());
      }

      BatchRenewal result = store.renewAll(leases);

      assertThat(result.renewed()).isEqualTo(n - stale.size());
      assertThat(result.lost().stream().map(Lease::runId).collect(Collectors.toSet()))
          .isEqualTo(stale);
      // The helper was handed the work of a second statement. Whether it took a chunk before
      // this thread took them all depends on scheduling (a loaded machine may start it late):
      // the result is the same either way, which the expiries below check.
      assertThat(scheduler.getTaskCount()).as("work handed to the helper").isEqualTo(1);
      Map<UUID, Instant> inDatabase = expiries("chunks");
      for (Lease l : leases) {
        if (!stale.contains(l.runId())) {
          assertThat(l.expiresAt())
              .as("expiry of %s", l.key())
              .isEqualTo(inDatabase.get(l.runId()));
        }
      }
    } finally {
      scheduler.shutdownNow();
    }
  }

  /** A helper that never gets a thread is not waited for: this thread renews every chunk. */
  @Test
  void aBusySchedulerDoesNotStallTheRenewal() throws Exception {
    int n = StoreInternals.RENEWAL_CHUNK + 10;
    ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(1);
    CountDownLatch release = new CountDownLatch(1);
    scheduler.execute(() -> awaitQuietly(release));
    try (LeaseStore store = storeOn(scheduler)) {
      List<Lease> leases = acquireMany(store, "busy", n);
      BatchRenewal result = store.renewAll(leases);
      assertThat(result.renewed()).isEqualTo(n);
      assertThat(result.lost()).isEmpty();
      Map<UUID, Instant> inDatabase = expiries("busy");
      for (Lease l : leases) {
        assertThat(l.expiresAt()).isEqualTo(inDatabase.get(l.runId()));
      }
    } finally {
      release.countDown();
      scheduler.shutdownNow();
    }
  }

  private static LeaseStore storeOn(ScheduledThreadPoolExecutor scheduler) {
    return LeaseStore.builder(db.dataSource())
        .accessPolicy(AccessPolicy.allowAll())
        .ttl(Duration.ofMinutes(5))
        .scheduler(scheduler)
        .build();
  }

  private static List<Lease> acquireMany(LeaseStore store, String account, int n) {
    return IntStream.range(0, n)
        .parallel()
        .mapToObj(i -> store.tryAcquire(LeaseKey.of(account, "s" + i), account))
        .map(r -> ((AcquireResult.Acquired) r).lease())
        .collect(Collectors.toList());
  }

  private static Map<UUID, Instant> expiries(String account) throws Exception {
    Map<UUID, Instant> m = new HashMap<>();
    try (Connection c = db.database().newConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT run_id, expires_at FROM leasehold_lease WHERE account_id = ?")) {
      ps.setString(1, account);
      try (ResultSet r = ps.executeQuery()) {
        while (r.next()) {
          m.put(r.getObject(1, UUID.class), r.getObject(2, OffsetDateTime.class).toInstant());
        }
      }
    }
    return m;
  }

  private static void awaitQuietly(CountDownLatch latch) {
    try {
      latch.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Test
  void leasesOfAnotherStoreAreRejectedBeforeAnythingIsSent() {
    try (LeaseStore a =
            LeaseStore.builder(db.dataSource()).accessPolicy(AccessPolicy.allowAll()).build();
        LeaseStore b =
            LeaseStore.builder(db.dataSource()).accessPolicy(AccessPolicy.allowAll()).build()) {
      Lease mine = ((AcquireResult.Acquired) a.tryAcquire(LeaseKey.of("x", "mine"), "x")).lease();
      Lease foreign =
          ((AcquireResult.Acquired) b.tryAcquire(LeaseKey.of("x", "theirs"), "x")).lease();
      List<Lease> mixed = new ArrayList<>(List.of(mine, foreign));
      assertThatThrownBy(() -> a.renewAll(mixed))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("another lease store");
      assertThat(mine.expiresAt())
          .isEqualTo(a.status(mine.key(), "app").owner().orElseThrow().expiresAt());
    }
  }
}
