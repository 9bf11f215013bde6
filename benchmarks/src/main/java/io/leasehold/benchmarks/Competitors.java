package io.leasehold.benchmarks;

import com.zaxxer.hikari.HikariDataSource;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.lease.AcquireResult;
import io.leasehold.lease.LeaseStore;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.locks.Lock;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.provider.jdbctemplate.JdbcTemplateLockProvider;
import org.springframework.integration.jdbc.lock.DefaultLockRepository;
import org.springframework.integration.jdbc.lock.JdbcLockRegistry;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;

/**
 * The acquire + release cycle of each competitor, as a per-thread operation. Keys: uncontended,
 * thread {@code i} uses its own key; contended, every thread uses one key.
 */
final class Competitors {
  static final Duration TTL = Duration.ofSeconds(30);

  private final BenchDatabase db;

  Competitors(BenchDatabase db) {
    this.db = db;
  }

  static String key(int thread, boolean contended) {
    return contended ? "contended" : "own-" + thread;
  }

  /** How the Leasehold competitors are set up. */
  enum Setup {
    /**
     * One store per worker, each on its own dedicated pool of one connection, as processes run it.
     */
    STORE_PER_WORKER,
    /** One store shared by the workers, on a dedicated pool. */
    SHARED_STORE,
    /** One store shared by the workers, on a pool it shares with the application (the default). */
    SHARED_POOL
  }

  /**
   * Leasehold: {@code tryAcquire} then {@code release}; with {@code notify} true, a store built
   * with {@code notifyChanges(true)} (publishing live status; the default is off).
   */
  Throughput.OpFactory leasehold(boolean contended, Setup setup, int threads, boolean notify) {
    LeaseStore shared =
        setup == Setup.STORE_PER_WORKER
            ? null
            : store(db.pool(threads + 2), setup == Setup.SHARED_STORE, notify);
    return (i, n) -> {
      LeaseStore store = shared != null ? shared : store(db.pool(1), true, notify);
      LeaseKey key = LeaseKey.of("bench", key(i, contended));
      return () -> {
        AcquireResult r = store.tryAcquire(key, "bench");
        if (r instanceof AcquireResult.Acquired a) {
          a.lease().release();
          return true;
        }
        return false;
      };
    };
  }

  private LeaseStore store(HikariDataSource pool, boolean dedicated, boolean notify) {
    LeaseStore store =
        BenchDatabase.storeBuilder(pool, TTL)
            .notifyChanges(notify)
            .dedicatedPool(dedicated)
            .build();
    db.onClose(store);
    return store;
  }

  /**
   * The exact statements Leasehold sends on a dedicated pool, from a bare JDBC loop on one
   * connection per thread: the floor of its own overhead.
   */
  Throughput.OpFactory leaseholdSql(boolean contended) {
    LeaseStatements sql =
        LeaseStatements.of(Duration.ofSeconds(1), Duration.ofSeconds(5), false, true);
    return (i, n) -> {
      Connection c = db.connection();
      try (Statement s = c.createStatement()) {
        s.execute(sql.sessionTimeouts());
      }
      PreparedStatement acquire = c.prepareStatement(sql.acquire());
      PreparedStatement acquireNew = c.prepareStatement(sql.acquireNew());
      PreparedStatement release = c.prepareStatement(sql.release());
      String k = key(i, contended);
      return () -> {
        UUID run = UUID.randomUUID();
        LeaseStatements.bindAcquire(acquire, "bench-sql", k, run, "bench", TTL.toNanos() / 1000, 0);
        // One statement answers both ways: granted with the fence, or refused with the holder's
        // row (which the store turns into its Busy answer without another round trip).
        Answer a = answer(acquire);
        Long fence = a.row() && a.first() instanceof Boolean g && g ? (Long) a.second() : null;
        if (!a.row()) {
          LeaseStatements.bindAcquireNew(
              acquireNew, "bench-sql", k, run, "bench", TTL.toNanos() / 1000);
          Answer inserted = answer(acquireNew);
          fence = inserted.row() ? (Long) inserted.first() : null;
        }
        if (fence == null) {
          return false;
        }
        release.setString(1, "bench-sql");
        release.setString(2, k);
        release.setObject(3, run);
        release.setLong(4, fence);
        answer(release);
        return true;
      };
    };
  }

  /** The seed's statements (conditional UPSERT, DELETE), no fence, no timeouts. */
  Throughput.OpFactory seedSql(boolean contended) {
    return (i, n) -> {
      Connection c = db.connection();
      PreparedStatement acquire =
          c.prepareStatement(
              "INSERT INTO seed_lease (account_id, session_id, run_id, expires_at)"
                  + " VALUES (?, ?, ?, clock_timestamp() + interval '30 seconds')"
                  + " ON CONFLICT (account_id, session_id) DO UPDATE SET run_id = EXCLUDED.run_id,"
                  + " expires_at = EXCLUDED.expires_at WHERE seed_lease.expires_at <= clock_timestamp()"
                  + " RETURNING run_id");
      PreparedStatement release =
          c.prepareStatement(
              "DELETE FROM seed_lease WHERE account_id = ? AND session_id = ? AND run_id = ?");
      String k = key(i, contended);
      return () -> {
        UUID run = UUID.randomUUID();
        acquire.setString(1, "seed");
        acquire.setString(2, k);
        acquire.setObject(3, run);
        boolean got;
        try (ResultSet rs = acquire.executeQuery()) {
          got = rs.next();
        }
        if (!got) {
          return false;
        }
        release.setString(1, "seed");
        release.setString(2, k);
        release.setObject(3, run);
        release.executeUpdate();
        return true;
      };
    };
  }

  /**
   * ShedLock's {@code JdbcTemplateLockProvider}: lock, then unlock; with {@code dbTime} its {@code
   * usingDbTime()} configuration (the database's clock, as Leasehold's).
   */
  Throughput.OpFactory shedLock(boolean contended, HikariDataSource pool, boolean dbTime) {
    JdbcTemplateLockProvider.Configuration.Builder config =
        JdbcTemplateLockProvider.Configuration.builder().withJdbcTemplate(new JdbcTemplate(pool));
    if (dbTime) {
      config.usingDbTime();
    }
    JdbcTemplateLockProvider provider = new JdbcTemplateLockProvider(config.build());
    return (i, n) -> {
      String k = key(i, contended);
      return () -> {
        Optional<SimpleLock> lock =
            provider.lock(new LockConfiguration(Instant.now(), k, TTL, Duration.ZERO));
        if (lock.isEmpty()) {
          return false;
        }
        lock.get().unlock();
        return true;
      };
    };
  }

  /**
   * What ShedLock's plain {@code JdbcLockProvider} sends (that artifact is not served to this
   * machine, so its protocol is re-sent from bare JDBC): on an auto-commit pooled connection per
   * statement, a conditional {@code UPDATE} of the lock's row with the client's clock, an {@code
   * INSERT} only for a name not yet known, and an {@code UPDATE} to unlock.
   */
  Throughput.OpFactory shedLockPlain(boolean contended, HikariDataSource pool) {
    return (i, n) -> {
      String k = key(i, contended);
      try (Connection c = pool.getConnection();
          PreparedStatement ps =
              c.prepareStatement(
                  "INSERT INTO shedlock (name, lock_until, locked_at, locked_by) VALUES (?, now(), now(), 'bench')"
                      + " ON CONFLICT DO NOTHING")) {
        ps.setString(1, k);
        ps.executeUpdate();
      }
      return () -> {
        java.sql.Timestamp now = java.sql.Timestamp.from(Instant.now());
        int locked;
        try (Connection c = pool.getConnection();
            PreparedStatement ps =
                c.prepareStatement(
                    "UPDATE shedlock SET lock_until = ?, locked_at = ?, locked_by = ? WHERE name = ? AND lock_until <= ?")) {
          ps.setTimestamp(1, java.sql.Timestamp.from(now.toInstant().plus(TTL)));
          ps.setTimestamp(2, now);
          ps.setString(3, "bench");
          ps.setString(4, k);
          ps.setTimestamp(5, now);
          locked = ps.executeUpdate();
        }
        if (locked == 0) {
          return false;
        }
        try (Connection c = pool.getConnection();
            PreparedStatement ps =
                c.prepareStatement("UPDATE shedlock SET lock_until = ? WHERE name = ?")) {
          ps.setTimestamp(1, java.sql.Timestamp.from(Instant.now()));
          ps.setString(2, k);
          ps.executeUpdate();
        }
        return true;
      };
    };
  }

  /**
   * Spring Integration's JdbcLockRegistry: {@code tryLock}, then {@code unlock}. One registry per
   * thread, like separate processes: a shared registry would settle contention in a JVM lock
   * without asking the database.
   */
  Throughput.OpFactory springRegistry(boolean contended, HikariDataSource pool) {
    return (i, n) -> {
      DefaultLockRepository repo = new DefaultLockRepository(pool, UUID.randomUUID().toString());
      repo.setTransactionManager(new DataSourceTransactionManager(pool));
      repo.afterPropertiesSet();
      repo.afterSingletonsInstantiated();
      JdbcLockRegistry registry = new JdbcLockRegistry(repo);
      Lock lock = registry.obtain(key(i, contended));
      return () -> {
        if (!lock.tryLock()) {
          return false;
        }
        lock.unlock();
        return true;
      };
    };
  }

  static void createPeerTables(BenchDatabase db) throws SQLException {
    // The seed's table, ShedLock's documented table for PostgreSQL, and Spring Integration's.
    List<String> tables =
        List.of(
            "seed_lease (account_id text, session_id text, run_id uuid NOT NULL, expires_at timestamptz NOT NULL,"
                + " PRIMARY KEY (account_id, session_id))",
            "shedlock (name VARCHAR(64) NOT NULL PRIMARY KEY, lock_until TIMESTAMP NOT NULL,"
                + " locked_at TIMESTAMP NOT NULL, locked_by VARCHAR(255) NOT NULL)",
            "INT_LOCK (LOCK_KEY CHAR(36) NOT NULL, REGION VARCHAR(100) NOT NULL, CLIENT_ID CHAR(36),"
                + " CREATED_DATE TIMESTAMP NOT NULL, EXPIRED_AFTER TIMESTAMP NOT NULL,"
                + " CONSTRAINT INT_LOCK_PK PRIMARY KEY (LOCK_KEY, REGION))");
    try (Connection c = db.connection();
        Statement s = c.createStatement()) {
      for (String table : tables) {
        s.execute("CREATE TABLE IF NOT EXISTS " + table);
      }
    }
  }

  /** The first row's first two columns of a statement's last result set (after any opening). */
  record Answer(boolean row, Object first, Object second) {}

  static Answer answer(PreparedStatement ps) throws SQLException {
    boolean isResultSet = ps.execute();
    Answer last = null;
    while (true) {
      if (isResultSet) {
        try (ResultSet rs = ps.getResultSet()) {
          last =
              rs.next()
                  ? new Answer(
                      true,
                      rs.getObject(1),
                      rs.getMetaData().getColumnCount() > 1 ? rs.getObject(2) : null)
                  : new Answer(false, null, null);
        }
      } else if (ps.getUpdateCount() == -1) {
        if (last == null) {
          throw new IllegalStateException("the statement returned no result set");
        }
        return last;
      }
      isResultSet = ps.getMoreResults();
    }
  }

  /** Executes a statement and returns the first column of its answer's first row, or null. */
  static Long firstLong(PreparedStatement ps) throws SQLException {
    Answer a = answer(ps);
    return !a.row()
        ? null
        : a.first() instanceof Number num ? num.longValue() : (a.first() == null ? null : 1L);
  }

  /** Executes the acquire and returns the fence if it was granted, else null. */
  static Long grantedFence(PreparedStatement ps) throws SQLException {
    Answer a = answer(ps);
    return a.row() && Boolean.TRUE.equals(a.first()) ? ((Number) a.second()).longValue() : null;
  }

  static List<String> names() {
    return List.of(
        "Leasehold, store per worker",
        "Leasehold, shared store",
        "Leasehold, shared pool",
        "Leasehold publishing",
        "Leasehold SQL, bare JDBC",
        "seed SQL, bare JDBC",
        "ShedLock plain JDBC",
        "ShedLock JdbcTemplate",
        "ShedLock JdbcTemplate, db time",
        "Spring JdbcLockRegistry");
  }
}
