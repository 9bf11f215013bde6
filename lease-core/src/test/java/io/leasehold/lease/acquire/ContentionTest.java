package io.leasehold.lease.acquire;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.lease.AccessPolicy;
import io.leasehold.lease.AcquireResult;
import io.leasehold.lease.Lease;
import io.leasehold.lease.LeaseStatus;
import io.leasehold.lease.LeaseStore;
import io.leasehold.lease.StoreInternals;
import io.leasehold.lease.child.HammerMain;
import io.leasehold.lease.support.LeaseDatabase;
import io.leasehold.lease.support.LockWaits;
import io.leasehold.lease.support.StatusPolling;
import io.leasehold.testing.CitusCoordinator;
import io.leasehold.testing.PostgresServer;
import io.leasehold.testing.SingleServerOnly;
import io.leasehold.testing.TestBudgets;
import io.leasehold.testing.TestDatabaseExtension;
import io.leasehold.testkit.ChildJvm;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * CONTRACT C18: however many callers compete for a key, a refused acquire is an answer ({@code
 * Busy}, with the holder's row), never an exception; and a refusal draws no fence.
 *
 * <p>TTLs go through {@link TestBudgets#scaled}: the store derives its statement budget (a quarter
 * of the TTL) and lock budget from them, and a budget sized for one PostgreSQL ends healthy
 * statements on Citus with {@code 57014}, which is not the contention these tests are about.
 */
@Timeout(120)
class ContentionTest {
  @RegisterExtension static final TestDatabaseExtension db = LeaseDatabase.extension();

  /** A store on the class database whose TTL is {@code ttl} sized for the server. */
  private static LeaseStore store(Duration ttl) {
    return LeaseStore.builder(db.dataSource())
        .accessPolicy(AccessPolicy.allowAll())
        .ttl(TestBudgets.scaled(ttl))
        .build();
  }

  @Test
  void aFirstAcquireWaitingPastTheLockTimeoutForAnotherIsBusyNotAnError() throws Exception {
    LeaseKey key = LeaseKey.of("acct", "first-race");
    try (LeaseStore store = store(Duration.ofSeconds(30));
        Connection inserter = db.database().newConnection()) {
      // Another first acquire of the key, not yet committed: ours waits for it on the primary key.
      inserter.setAutoCommit(false);
      try (PreparedStatement ps = inserter.prepareStatement(StoreInternals.acquireNewStatement())) {
        StoreInternals.bindAcquireNew(ps, key, UUID.randomUUID(), "other", 30_000_000);
        ps.execute();
      }
      assertThat(store.tryAcquire(key, "acct")).isInstanceOf(AcquireResult.Busy.class);
      inserter.commit();
      AcquireResult after = store.tryAcquire(key, "acct");
      assertThat(after)
          .isInstanceOfSatisfying(
              AcquireResult.Busy.class,
              b -> assertThat(b.status().owner().orElseThrow().holder()).isEqualTo("other"));
    }
  }

  @Test
  void aRowLockHeldOnAnExpiredLeaseIsBusyNotAnError() throws Exception {
    LeaseKey key = LeaseKey.of("acct", "locked-expired");
    try (LeaseStore store = store(Duration.ofMillis(250))) {
      store.tryAcquire(key, "acct"); // not kept: it expires
      StatusPolling.awaitStatus(
          store,
          key,
          s -> s.state() == LeaseStatus.State.FREE,
          TestBudgets.scaled(Duration.ofSeconds(10)));
      try (Connection holder = LockWaits.lockRow(db, key)) {
        AcquireResult r = store.tryAcquire(key, "acct");
        assertThat(r).isInstanceOf(AcquireResult.Busy.class);
        holder.rollback();
      }
      assertThat(store.tryAcquire(key, "acct")).isInstanceOf(AcquireResult.Acquired.class);
    }
  }

  @Test
  void aLiveLeaseWhoseRowIsLockedIsRefusedWithoutWaiting() throws Exception {
    LeaseKey key = LeaseKey.of("acct", "locked-live");
    try (LeaseStore store = store(Duration.ofSeconds(30))) {
      AcquireResult.Acquired held = (AcquireResult.Acquired) store.tryAcquire(key, "acct");
      try (Connection renewing = LockWaits.lockRow(db, key)) {
        AcquireResult r = store.tryAcquire(key, "acct");
        assertThat(r)
            .isInstanceOfSatisfying(
                AcquireResult.Busy.class,
                b -> {
                  assertThat(b.status().state()).isEqualTo(LeaseStatus.State.HELD);
                  assertThat(b.status().owner().orElseThrow().runId())
                      .isEqualTo(held.lease().runId());
                  assertThat(b.status().owner().orElseThrow().fence())
                      .isEqualTo(held.lease().fence());
                });
        renewing.rollback();
      }
    }
  }

  @Test
  @SingleServerOnly(
      "on Citus every acquire draws its fence from the sequence in a CTE that runs on the"
          + " coordinator before the key's worker decides, so a refused acquire draws a fence too;"
          + " fences still strictly increase per key (C3), only not densely")
  void aRefusedAcquireDrawsNoFence() {
    LeaseKey key = LeaseKey.of("acct", "dense");
    try (LeaseStore store = store(Duration.ofSeconds(30))) {
      Lease first = ((AcquireResult.Acquired) store.tryAcquire(key, "acct")).lease();
      for (int i = 0; i < 10; i++) {
        assertThat(store.tryAcquire(key, "acct")).isInstanceOf(AcquireResult.Busy.class);
      }
      first.release();
      Lease second = ((AcquireResult.Acquired) store.tryAcquire(key, "acct")).lease();
      assertThat(second.fence()).isEqualTo(first.fence() + 1);
    }
  }

  /**
   * A pool of {@code size} connections whose backends have each run the acquire statement once. A
   * backend's first statement loads the catalog entries of the table, its index and the sequence;
   * sixteen cold backends doing that at once on two cores once took longer than the 62 ms statement
   * budget of a 250 ms TTL (57014 in CI). That is a real timeout, which C18 allows, but not the
   * contention this test is about, so the hammer starts on warm backends.
   */
  private static HikariDataSource warmPool(int size) throws Exception {
    HikariDataSource pool = db.database().newPool(size);
    // Asked before the loop below holds every connection of the pool.
    String acquire = StoreInternals.acquireStatement(pool);
    List<Connection> held = new ArrayList<>();
    try {
      for (int i = 0; i < size; i++) {
        Connection c = pool.getConnection();
        held.add(c);
        try (PreparedStatement ps = c.prepareStatement(acquire)) {
          StoreInternals.bindAcquire(
              ps, LeaseKey.of("acct", "warm-" + i), UUID.randomUUID(), "warm", 1);
          ps.execute();
        }
      }
    } finally {
      for (Connection c : held) {
        c.close();
      }
    }
    return pool;
  }

  @Test
  void sixteenThreadsOnOneKeyWithAShortTtlGetOnlyAnswers() throws Exception {
    try (HikariDataSource pool = warmPool(16);
        LeaseStore store =
            LeaseStore.builder(pool)
                .accessPolicy(AccessPolicy.allowAll())
                .ttl(TestBudgets.scaled(Duration.ofMillis(250)))
                .build()) {
      // The store checks its fence sequence (a catalog read) until one check passes; sixteen
      // first acquires on a loaded 2-core machine all checking at once ran past the 62 ms
      // statement budget (57014 in CI). A real timeout, which C18 allows, but not this test's
      // subject: the health probe does that check once before the hammer.
      store.databaseTime();
      HammerMain.Counts c = HammerMain.hammer(store, LeaseKey.of("acct", "hammered"), 16, 100);
      System.out.println("sixteen threads on one key: " + c);
      assertThat(c.errors()).as("first error: %s", c.firstError()).isZero();
      assertReleasesWaitedOnlyOnCitus(c.releaseLockTimeouts());
      assertThat(c.acquired()).isPositive();
      assertThat(c.acquired() + c.busy()).isEqualTo(1600);
    }
  }

  /**
   * On one PostgreSQL a release never waits long for the key's row: a refused acquire that locked
   * it (PostgreSQL locks the newest version before it re-checks the condition, and keeps the lock
   * to the end of the transaction) ends its transaction in the same round trip. On a Citus
   * coordinator that transaction is distributed: the refused acquire holds the row lock on the
   * worker until the coordinator commits there, after the statement's second step and the client's
   * commit, and a release queued behind several such acquires can reach its lock timeout. That
   * release fails with {@code 55P03} and its lease ends at its TTL (docs/scale-out.md, "Releases
   * under contention"). Every other failure counts as an error in both places.
   */
  private static void assertReleasesWaitedOnlyOnCitus(int releaseLockTimeouts) {
    if (!CitusCoordinator.KIND.equals(System.getProperty(PostgresServer.KIND_PROPERTY))) {
      assertThat(releaseLockTimeouts).as("releases that reached the lock timeout").isZero();
    }
  }

  @Test
  void twoProcessesOnOneKeyWithAShortTtlGetOnlyAnswers() throws Exception {
    LeaseKey key = LeaseKey.of("acct", "two-processes");
    // A 1 s TTL: 100 ms lock and 250 ms statement budgets. At 250 ms (a 62 ms statement budget)
    // a statement of the freshly started child now and then really exceeded its budget on this
    // 2-core machine (once in three CI runs: 57014, a timeout the contract allows), not a lock
    // wait; the in-process test above keeps the 250 ms TTL.
    try (LeaseStore store = store(Duration.ofSeconds(1));
        ChildJvm child =
            LeaseDatabase.child(
                db, HammerMain.class, key, "8", "100", Long.toString(TestBudgets.scaled(1000L)))) {
      child.awaitLine("READY", 60);
      child.send("GO");
      HammerMain.Counts mine = HammerMain.hammer(store, key, 8, 100);
      String childResult = child.awaitLine("RESULT ", 120);
      String[] theirs = childResult.split(" ", 6);
      System.out.println(
          "two processes on one key: here " + mine + ", in the child " + childResult);

      assertThat(mine.errors()).as("first error here: %s", mine.firstError()).isZero();
      assertThat(Integer.parseInt(theirs[3]))
          .as("first error in the child: %s", theirs[5])
          .isZero();
      assertReleasesWaitedOnlyOnCitus(mine.releaseLockTimeouts() + Integer.parseInt(theirs[4]));
      assertThat(mine.acquired() + Integer.parseInt(theirs[1])).isPositive();
    }
  }
}
