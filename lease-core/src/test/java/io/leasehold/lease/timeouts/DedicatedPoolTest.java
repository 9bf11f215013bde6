package io.leasehold.lease.timeouts;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.lease.AccessPolicy;
import io.leasehold.lease.AcquireRequest;
import io.leasehold.lease.AcquireResult;
import io.leasehold.lease.Lease;
import io.leasehold.lease.LeaseStatus;
import io.leasehold.lease.LeaseStore;
import io.leasehold.lease.LeaseStoreBuilder;
import io.leasehold.lease.support.LeaseDatabase;
import io.leasehold.lease.support.LockWaits;
import io.leasehold.lease.support.StatusPolling;
import io.leasehold.testing.TestDatabaseExtension;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * CONTRACT C5 on a pool that serves the store alone ({@link LeaseStoreBuilder#dedicatedPool}): the
 * timeouts are set once per connection and still bound every statement; and on a shared pool (the
 * default) nothing the store sets stays on a connection the application borrows next.
 */
@Timeout(120)
class DedicatedPoolTest {
  @RegisterExtension static final TestDatabaseExtension db = LeaseDatabase.extension();

  private static LeaseStore store(HikariDataSource pool, boolean dedicated, Duration ttl) {
    return LeaseStore.builder(pool)
        .accessPolicy(AccessPolicy.allowAll())
        .ttl(ttl)
        .lockTimeout(Duration.ofMillis(300))
        .statementTimeout(Duration.ofMillis(700))
        .dedicatedPool(dedicated)
        .build();
  }

  private static String show(Connection c, String setting) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT current_setting('" + setting + "')")) {
      rs.next();
      return rs.getString(1);
    }
  }

  /** A store's acquire and release on the pool's one connection, which it then hands back. */
  private static Connection afterACycle(HikariDataSource pool, boolean dedicated)
      throws SQLException {
    try (LeaseStore store = store(pool, dedicated, Duration.ofSeconds(30))) {
      ((AcquireResult.Acquired) store.tryAcquire(LeaseKey.of("acct", "cycle-" + dedicated), "acct"))
          .lease()
          .release();
    }
    return pool.getConnection();
  }

  /**
   * A shared pool gets its connections back without the store's settings (the application's queries
   * see its own, none here); a dedicated pool's connections carry both timeouts.
   */
  @ParameterizedTest(name = "dedicated: {0}")
  @CsvSource({"false, 0, 0", "true, 300ms, 700ms"})
  void aPoolsConnectionsCarryTheTimeoutsOnlyWhenDedicated(
      boolean dedicated, String lock, String statement) throws Exception {
    try (HikariDataSource pool = db.database().newPool(1);
        Connection c = afterACycle(pool, dedicated)) {
      assertThat(List.of(show(c, "lock_timeout"), show(c, "statement_timeout")))
          .containsExactly(lock, statement);
      if (dedicated) {
        // What the store's own slow statement would meet: cut off at the statement timeout.
        try (Statement s = c.createStatement()) {
          assertThatThrownBy(() -> s.execute("SELECT pg_sleep(30)"))
              .isInstanceOfSatisfying(
                  SQLException.class, e -> assertThat(e.getSQLState()).isEqualTo("57014"));
        }
      }
    }
  }

  @Test
  void aLockWaitOfTheStoresOwnAcquireIsCutOffAndAnsweredBusy() throws Exception {
    LeaseKey key = LeaseKey.of("acct", "dedicated-locked");
    try (HikariDataSource pool = db.database().newPool(2);
        LeaseStore store = store(pool, true, Duration.ofMillis(2_000))) {
      store.tryAcquire(AcquireRequest.of(key, "acct").oneShot(Duration.ofMillis(5)));
      StatusPolling.awaitStatus(
          store, key, s -> s.state() == LeaseStatus.State.FREE, Duration.ofSeconds(10));
      // A contender in mid-takeover holds the free row's lock and does not commit: without the
      // lock timeout on the connection, the acquire would wait for it for ever.
      try (Connection contender = LockWaits.lockRow(db, key)) {
        assertThat(store.tryAcquire(key, "acct")).isInstanceOf(AcquireResult.Busy.class);
        contender.rollback();
      }
      assertThat(store.tryAcquire(key, "acct")).isInstanceOf(AcquireResult.Acquired.class);
    }
  }

  /**
   * The contended hammer of C1-C3 on dedicated pools, one store per worker as separate processes
   * would have: every grant's fence is higher than the one before it, and no refusal draws one.
   */
  @Test
  void fencesIncreaseAndRefusalsDrawNoneUnderContention() throws Exception {
    LeaseKey key = LeaseKey.of("acct", "dedicated-hammer");
    int workers = 6;
    List<HikariDataSource> pools = new ArrayList<>();
    List<LeaseStore> stores = new ArrayList<>();
    ExecutorService threads = Executors.newFixedThreadPool(workers);
    try {
      for (int i = 0; i < workers; i++) {
        pools.add(db.database().newPool(1));
        stores.add(store(pools.get(i), true, Duration.ofSeconds(30)));
      }
      CountDownLatch start = new CountDownLatch(1);
      List<Future<List<Long>>> granted = new ArrayList<>();
      for (LeaseStore s : stores) {
        granted.add(
            threads.submit(
                () -> {
                  start.await();
                  List<Long> fences = new ArrayList<>();
                  for (int n = 0; n < 150; n++) {
                    AcquireResult r = s.tryAcquire(key, "acct");
                    if (r instanceof AcquireResult.Acquired a) {
                      fences.add(a.lease().fence());
                      a.lease().release();
                    } else {
                      assertThat(r).isInstanceOf(AcquireResult.Busy.class);
                    }
                  }
                  return fences;
                }));
      }
      start.countDown();
      List<Long> all = new ArrayList<>();
      for (Future<List<Long>> f : granted) {
        List<Long> mine = f.get(90, TimeUnit.SECONDS);
        for (int i = 1; i < mine.size(); i++) {
          assertThat(mine.get(i)).isGreaterThan(mine.get(i - 1));
        }
        all.addAll(mine);
      }
      assertThat(all).doesNotHaveDuplicates().isNotEmpty();
      // Refusals drew nothing: the next grant's fence is one above the last. (Only the losers of
      // the race to insert the key's row drew values, before any later grant drew its own.)
      Lease next = ((AcquireResult.Acquired) stores.get(0).tryAcquire(key, "acct")).lease();
      long highest = all.stream().mapToLong(Long::longValue).max().orElseThrow();
      assertThat(next.fence()).isEqualTo(highest + 1);
      next.release();
    } finally {
      threads.shutdownNow();
      for (LeaseStore s : stores) {
        s.close();
      }
      for (HikariDataSource p : pools) {
        p.close();
      }
    }
  }
}
