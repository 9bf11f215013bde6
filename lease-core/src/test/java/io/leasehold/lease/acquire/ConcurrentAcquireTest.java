package io.leasehold.lease.acquire;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.lease.AccessPolicy;
import io.leasehold.lease.AcquireResult;
import io.leasehold.lease.Lease;
import io.leasehold.lease.LeaseStore;
import io.leasehold.lease.ReleaseResult;
import io.leasehold.lease.support.LeaseDatabase;
import io.leasehold.testing.Contenders;
import io.leasehold.testing.TestBudgets;
import io.leasehold.testing.TestDatabaseExtension;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** CONTRACT C1 and C3 under real concurrency: separate pools, real connections, a barrier. */
class ConcurrentAcquireTest {
  @RegisterExtension static final TestDatabaseExtension db = LeaseDatabase.extension();

  /** The seed's first acceptance test: two independent sessions race; exactly one wins. */
  @Test
  void twoIndependentConnectionsRaceAndExactlyOneWins() throws Exception {
    try (HikariDataSource poolA = db.database().newPool(1);
        HikariDataSource poolB = db.database().newPool(1);
        LeaseStore desktop = store(poolA);
        LeaseStore browser = store(poolB)) {
      ExecutorService two = Executors.newFixedThreadPool(2);
      try {
        CyclicBarrier barrier = new CyclicBarrier(2);
        int rounds = 300;
        int desktopWins = 0;
        for (int round = 0; round < rounds; round++) {
          LeaseKey key = LeaseKey.of("acct", "race-" + round);
          Future<AcquireResult> a = two.submit(race(barrier, desktop, key));
          Future<AcquireResult> b = two.submit(race(barrier, browser, key));
          AcquireResult ra = a.get(10, TimeUnit.SECONDS);
          AcquireResult rb = b.get(10, TimeUnit.SECONDS);
          int winners =
              (ra instanceof AcquireResult.Acquired ? 1 : 0)
                  + (rb instanceof AcquireResult.Acquired ? 1 : 0);
          assertThat(winners).as("winners of round %d", round).isEqualTo(1);
          AcquireResult loser = ra instanceof AcquireResult.Acquired ? rb : ra;
          Lease winner =
              (ra instanceof AcquireResult.Acquired w ? w : (AcquireResult.Acquired) rb).lease();
          assertThat(loser)
              .isInstanceOfSatisfying(
                  AcquireResult.Busy.class,
                  busy ->
                      assertThat(busy.status().owner().orElseThrow().runId())
                          .isEqualTo(winner.runId()));
          if (ra instanceof AcquireResult.Acquired) {
            desktopWins++;
          }
        }
        // Both sides won some races: the barrier really made them race.
        assertThat(desktopWins).isBetween(1, rounds - 1);
      } finally {
        two.shutdownNow();
      }
    }
  }

  private static Callable<AcquireResult> race(
      CyclicBarrier barrier, LeaseStore store, LeaseKey key) {
    return () -> {
      barrier.await(10, TimeUnit.SECONDS);
      return store.tryAcquire(key, "acct");
    };
  }

  /**
   * CONTRACT C3: many threads hand one key around (acquire, record, release) thousands of times.
   * Each thread records its fence while it holds the lease, so the log is in acquisition order; the
   * fences must strictly increase. The seed's DELETE-on-release design fails this.
   */
  @Test
  void fencesStrictlyIncreaseOverThousandsOfContendedHandovers() throws Exception {
    LeaseKey key = LeaseKey.of("acct", "handover");
    int threads = 8;
    int handovers = 3000;
    List<Long> log = new ArrayList<>();
    try (HikariDataSource pool = db.database().newPool(threads);
        LeaseStore store = store(pool)) {
      List<Integer> wins =
          Contenders.atOnce(
              threads,
              () -> {
                int won = 0;
                while (true) {
                  synchronized (log) {
                    if (log.size() >= handovers) {
                      return won;
                    }
                  }
                  AcquireResult r = store.tryAcquire(key, "acct");
                  if (r instanceof AcquireResult.Acquired a) {
                    synchronized (log) {
                      if (log.size() >= handovers) {
                        a.lease().release();
                        return won;
                      }
                      log.add(a.lease().fence());
                    }
                    assertThat(a.lease().release().outcome())
                        .isEqualTo(ReleaseResult.Outcome.RELEASED);
                    won++;
                  }
                }
              },
              // 120 s on one PostgreSQL; a handover costs several times that on Citus.
              TestBudgets.scaled(Duration.ofSeconds(120)));
      int total = wins.stream().mapToInt(Integer::intValue).sum();
      assertThat(total).isEqualTo(log.size()).isEqualTo(handovers);
    }
    for (int i = 1; i < log.size(); i++) {
      assertThat(log.get(i))
          .as("fence #%d after %d", i, log.get(i - 1))
          .isGreaterThan(log.get(i - 1));
    }
  }

  /** The same handover with takeovers after expiry instead of releases. */
  @Test
  void fencesStrictlyIncreaseAcrossTakeoversAfterExpiry() throws Exception {
    LeaseKey key = LeaseKey.of("acct", "takeover");
    // The expiries go through one connection of their own: a connection opened for each of the
    // 200 took most of the test's time.
    try (LeaseStore store = store(db.dataSource());
        Connection expiries = db.database().newConnection();
        Statement expire = expiries.createStatement()) {
      long previous = 0;
      for (int i = 0; i < 200; i++) {
        Lease lease = ((AcquireResult.Acquired) store.tryAcquire(key, "acct")).lease();
        assertThat(lease.fence()).isGreaterThan(previous);
        previous = lease.fence();
        assertThat(
                expire.executeUpdate(
                    "UPDATE leasehold_lease SET expires_at = statement_timestamp() - interval '1 ms'"
                        + " WHERE account_id = 'acct' AND session_id = 'takeover'"))
            .isOne();
      }
    }
  }

  private static LeaseStore store(javax.sql.DataSource ds) {
    return LeaseStore.builder(ds).accessPolicy(AccessPolicy.allowAll()).build();
  }
}
