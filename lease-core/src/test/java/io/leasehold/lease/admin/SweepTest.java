package io.leasehold.lease.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.leasehold.fencing.LeaseKey;
import io.leasehold.lease.AccessPolicy;
import io.leasehold.lease.AcquireResult;
import io.leasehold.lease.Lease;
import io.leasehold.lease.LeaseAdmin;
import io.leasehold.lease.LeaseStatus;
import io.leasehold.lease.LeaseStore;
import io.leasehold.lease.StoreInternals;
import io.leasehold.lease.support.LeaseDatabase;
import io.leasehold.lease.support.LockWaits;
import io.leasehold.testing.TestDatabaseExtension;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The sweeper deletes only long-dead rows, keeps fences increasing (C3) and refuses bad ages. */
class SweepTest {
  @RegisterExtension static final TestDatabaseExtension db = LeaseDatabase.extension();

  private static final AtomicInteger ACCOUNTS = new AtomicInteger();
  private static final Duration TWO_DAYS = Duration.ofDays(2);

  private LeaseStore store() {
    return LeaseStore.builder(db.dataSource())
        .accessPolicy(AccessPolicy.allowAll().withAdministrators(java.util.Set.of("ops")))
        .build();
  }

  private static Lease acquire(LeaseStore store, LeaseKey key) {
    return ((AcquireResult.Acquired) store.tryAcquire(key, key.accountId())).lease();
  }

  private static long rows(String account) {
    return db.database()
        .queryOne(
            "SELECT count(*) FROM leasehold_lease WHERE account_id = '" + account + "'",
            Long.class);
  }

  private static String newAccount() {
    return "sweep-" + ACCOUNTS.incrementAndGet();
  }

  @Test
  void deletesOnlyRowsThatEndedLongerAgoThanTheAge() throws Exception {
    String account = newAccount();
    try (LeaseStore store = store()) {
      Lease held = acquire(store, LeaseKey.of(account, "held"));
      acquire(store, LeaseKey.of(account, "released-now")).release();
      LeaseKey expiredRecently = LeaseKey.of(account, "expired-yesterday");
      acquire(store, expiredRecently);
      LeaseDatabase.endedDaysAgo(db, expiredRecently, 1, false);
      LeaseKey releasedLongAgo = LeaseKey.of(account, "released-long-ago");
      acquire(store, releasedLongAgo).release();
      LeaseDatabase.endedDaysAgo(db, releasedLongAgo, 3, true);
      LeaseKey expiredLongAgo = LeaseKey.of(account, "expired-long-ago");
      acquire(store, expiredLongAgo);
      LeaseDatabase.endedDaysAgo(db, expiredLongAgo, 3, false);

      assertThat(store.admin().sweep(TWO_DAYS, "ops")).isEqualTo(2);

      assertThat(rows(account)).isEqualTo(3);
      assertThat(store.status(releasedLongAgo, "app").owner()).isEmpty();
      assertThat(store.status(expiredLongAgo, "app").owner()).isEmpty();
      assertThat(store.status(expiredRecently, "app").owner()).isPresent();
      assertThat(held.renew().renewed()).as("the held lease is untouched").isTrue();
      assertThat(store.admin().sweep(TWO_DAYS, "ops")).isZero();
    }
  }

  @Test
  void aSweptKeyIsAcquiredAgainWithAHigherFence() throws Exception {
    LeaseKey key = LeaseKey.of(newAccount(), "again");
    try (LeaseStore store = store()) {
      Lease first = acquire(store, key);
      first.release();
      LeaseDatabase.endedDaysAgo(db, key, 3, true);
      assertThat(store.admin().sweep(TWO_DAYS, "ops")).isEqualTo(1);
      assertThat(store.status(key, "app").state()).isEqualTo(LeaseStatus.State.FREE);

      Lease second = acquire(store, key);
      assertThat(second.fence()).isGreaterThan(first.fence());
    }
  }

  @Test
  void sweepsInBatchesUntilNothingIsLeft() throws Exception {
    String account = newAccount();
    int n = 2 * LeaseAdmin.SWEEP_BATCH + 123;
    db.database()
        .execute(
            "INSERT INTO leasehold_lease (account_id, session_id, run_id, fence, acquired_at, renewed_at,"
                + " expires_at, released_at) SELECT '"
                + account
                + "', 's' || g, gen_random_uuid(),"
                + " nextval('leasehold_fence_seq'), now() - interval '10 days', now() - interval '10 days',"
                + " now() - interval '9 days', CASE WHEN g % 2 = 0 THEN now() - interval '9 days' END"
                + " FROM generate_series(1, "
                + n
                + ") g");
    assertThat(rows(account)).isEqualTo(n);
    try (LeaseStore store = store()) {
      Lease live = acquire(store, LeaseKey.of(account, "live"));
      assertThat(store.admin().sweep(TWO_DAYS, "ops")).isEqualTo(n);
      assertThat(rows(account)).isEqualTo(1);
      assertThat(live.renew().renewed()).isTrue();
    }
  }

  @Test
  void badAgesAreRefusedAndNothingIsDeleted() throws Exception {
    LeaseKey key = LeaseKey.of(newAccount(), "kept");
    try (LeaseStore store = store()) {
      acquire(store, key).release();
      LeaseDatabase.endedDaysAgo(db, key, 30, true);
      assertThatThrownBy(() -> store.admin().sweep(null, "ops"))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("deadFor");
      assertThatThrownBy(() -> store.admin().sweep(LeaseStore.MAX_TTL.minusSeconds(1), "ops"))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("between PT24H", "was PT23H59M59S");
      assertThatThrownBy(() -> store.admin().sweep(Duration.ofDays(365 * 1000), "ops"))
          .isInstanceOf(IllegalArgumentException.class);
      assertThat(rows(key.accountId())).isEqualTo(1);
    }
    LeaseStore closed = store();
    closed.close();
    assertThatThrownBy(() -> closed.admin().sweep(TWO_DAYS, "ops"))
        .isInstanceOf(IllegalStateException.class);
    assertThat(rows(key.accountId())).isEqualTo(1);
  }

  /**
   * An acquire takes a long-dead row over while the sweep waits for that row's lock: after the
   * acquire commits, the sweep sees the row's new version, which is live, and keeps it.
   */
  @Test
  void aRowRevivedWhileTheSweepWaitsIsKept() throws Exception {
    LeaseKey key = LeaseKey.of(newAccount(), "revived");
    try (LeaseStore store =
            LeaseStore.builder(db.dataSource())
                .accessPolicy(AccessPolicy.allowAll().withAdministrators(java.util.Set.of("ops")))
                .ttl(Duration.ofMinutes(2))
                .lockTimeout(Duration.ofSeconds(20))
                .statementTimeout(Duration.ofSeconds(25))
                .build();
        Connection acquirer = db.database().newConnection()) {
      acquire(store, key).release();
      LeaseDatabase.endedDaysAgo(db, key, 3, true);

      // The store's own acquire, in a transaction left open: the row is revived and locked.
      acquirer.setAutoCommit(false);
      UUID run = UUID.randomUUID();
      try (PreparedStatement ps =
          acquirer.prepareStatement(StoreInternals.acquireStatement(db.dataSource()))) {
        StoreInternals.bindAcquire(ps, key, run, "reviver", 60_000_000);
        ps.execute();
        assertThat(ps.getMoreResults()).isTrue();
        try (ResultSet rs = ps.getResultSet()) {
          assertThat(rs.next()).isTrue();
        }
      }

      long acquirerId = LockWaits.lockHolderId(acquirer);
      CompletableFuture<Long> sweep =
          CompletableFuture.supplyAsync(() -> store.admin().sweep(TWO_DAYS, "ops"));
      LockWaits.awaitABackendBlockedBy(db, acquirerId, "the sweep");
      acquirer.commit();

      assertThat(sweep.get(30, TimeUnit.SECONDS)).isZero();
      LeaseStatus status = store.status(key, "app");
      assertThat(status.isHeld()).isTrue();
      assertThat(status.owner().orElseThrow().runId()).isEqualTo(run);
    }
  }
}
