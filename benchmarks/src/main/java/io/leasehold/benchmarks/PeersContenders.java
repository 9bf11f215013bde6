package io.leasehold.benchmarks;

import com.zaxxer.hikari.HikariDataSource;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.lease.AccessPolicy;
import io.leasehold.lease.AcquireResult;
import io.leasehold.lease.LeaseStore;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.provider.jdbc.JdbcLockProvider;

/**
 * The contenders of {@link PeersBench}, each on a fresh default HikariCP pool of the run's
 * database: Leasehold as the README builds it, the store's default set-up, and ShedLock's plain
 * provider.
 */
final class PeersContenders {
  /** Keys of the uncontended load, shared out between the threads. */
  static final int KEYS = 1_000;

  static final List<String> NAMES =
      List.of("Leasehold, as the README builds it", "Leasehold, default store", "ShedLock plain");

  private final BenchDatabase db;

  PeersContenders(BenchDatabase db) {
    this.db = db;
  }

  /** One attempt of one thread: true when it acquired (and released), false when refused. */
  @FunctionalInterface
  interface Attempt {
    boolean run() throws Exception;
  }

  /** The keys thread {@code i} of {@code n} goes through, in turn. */
  static List<String> keys(int i, int n, boolean contended) {
    if (contended) {
      return List.of("contended");
    }
    List<String> keys = new ArrayList<>();
    for (int k = i; k < KEYS; k += n) {
      keys.add("key-" + k);
    }
    return keys;
  }

  /** A contender: its attempts on given keys, and a way to hold a key for the refusals. */
  abstract static class Contender {
    private final HikariDataSource pool;

    Contender(HikariDataSource pool) {
      this.pool = pool;
    }

    abstract Attempt attempt(List<String> keys);

    /** Takes {@code key} and keeps it until closed. */
    abstract AutoCloseable hold(String key) throws Exception;

    /** The contender's pool, whose connections {@link #report} makes report their statistics. */
    final HikariDataSource pool() {
      return pool;
    }
  }

  /**
   * Makes every backend of {@code pool} report its pending statistics, one statement on each of the
   * pool's connections (opening those not yet open). From PostgreSQL 15 the statement is {@code
   * pg_stat_force_next_flush()}: the backend then reports everything pending when it goes idle,
   * before it answers, so the counters are complete when the last statement returns. Before 15 a
   * backend reports when it goes idle at least a second after its last report, so the statements
   * follow a second's pause.
   */
  static void report(HikariDataSource pool) throws Exception {
    List<java.sql.Connection> all = new ArrayList<>();
    try {
      all.add(pool.getConnection());
      boolean forced = all.get(0).getMetaData().getDatabaseMajorVersion() >= 15;
      if (!forced) {
        Thread.sleep(1_050);
      }
      for (int i = 0; i < pool.getMaximumPoolSize(); i++) {
        if (i > 0) {
          all.add(pool.getConnection());
        }
        try (java.sql.Statement s = all.get(i).createStatement()) {
          s.execute(forced ? "SELECT pg_stat_force_next_flush()" : "SELECT 1");
        }
      }
    } finally {
      for (java.sql.Connection c : all) {
        c.close();
      }
    }
  }

  /** The contenders, in the order of {@link #NAMES}, each on a fresh pool. */
  List<Contender> contenders() {
    return List.of(contender(0), contender(1), contender(2));
  }

  /** Contender {@code c} of {@link #NAMES}, on a fresh pool. */
  Contender contender(int c) {
    return switch (c) {
      case 0 -> leasehold(true);
      case 1 -> leasehold(false);
      default -> shedLock();
    };
  }

  /** One store on one pool, built as the README builds it (or without the dedicated pool). */
  private Contender leasehold(boolean dedicated) {
    HikariDataSource pool = db.defaultPool(CountingSocketFactory.class);
    LeaseStore store =
        LeaseStore.builder(pool)
            .accessPolicy(AccessPolicy.callerOwnsAccount())
            .ttl(Duration.ofSeconds(30))
            .dedicatedPool(dedicated)
            .build();
    db.onClose(store);
    return new Contender(pool) {
      @Override
      Attempt attempt(List<String> names) {
        List<LeaseKey> keys = names.stream().map(k -> LeaseKey.of("peers", k)).toList();
        int[] next = {0};
        return () -> {
          LeaseKey key = keys.get(next[0]++ % keys.size());
          AcquireResult r = store.tryAcquire(key, "peers");
          if (r instanceof AcquireResult.Acquired a) {
            a.lease().release();
            return true;
          }
          return false;
        };
      }

      @Override
      AutoCloseable hold(String key) {
        AcquireResult r = store.tryAcquire(LeaseKey.of("peers", key), "peers");
        if (!(r instanceof AcquireResult.Acquired a)) {
          throw new IllegalStateException("could not hold " + key + ": " + r);
        }
        return a.lease()::release;
      }
    };
  }

  /** ShedLock's plain provider: lock, then unlock. */
  private Contender shedLock() {
    HikariDataSource pool = db.defaultPool(CountingSocketFactory.class);
    JdbcLockProvider provider = new JdbcLockProvider(pool);
    return new Contender(pool) {
      @Override
      Attempt attempt(List<String> names) {
        List<String> keys = names.stream().map(k -> "peers-" + k).toList();
        int[] next = {0};
        return () -> {
          Optional<SimpleLock> lock = lock(keys.get(next[0]++ % keys.size()));
          if (lock.isEmpty()) {
            return false;
          }
          lock.get().unlock();
          return true;
        };
      }

      @Override
      AutoCloseable hold(String key) {
        SimpleLock lock =
            lock("peers-" + key)
                .orElseThrow(() -> new IllegalStateException("could not hold " + key));
        return lock::unlock;
      }

      private Optional<SimpleLock> lock(String name) {
        return provider.lock(
            new LockConfiguration(Instant.now(), name, Duration.ofSeconds(30), Duration.ZERO));
      }
    };
  }
}
