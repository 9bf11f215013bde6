package io.leasehold.benchmarks;

import com.zaxxer.hikari.HikariDataSource;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.lease.AccessPolicy;
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

  /**
   * Leasehold: {@code tryAcquire} then {@code release}; with {@code notify} true, a store built
   * with {@code notifyChanges(true)} (publishing live status; the default is off).
   */
  Throughput.OpFactory leasehold(boolean contended, HikariDataSource pool, boolean notify) {
    LeaseStore store =
        LeaseStore.builder(pool).accessPolicy(AccessPolicy.allowAll()).ttl(TTL).notifyChanges(notify).build();
    return (i, n) -> {
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

  /**
   * The exact statements Leasehold sends, from a bare JDBC loop on one connection per thread: the
   * floor of its own overhead.
   */
  Throughput.OpFactory leaseholdSql(boolean contended) {
    LeaseStatements sql = new LeaseStatements(Duration.ofSeconds(1), Duration.ofSeconds(5));
    return (i, n) -> {
      Connection c = db.connection();
      PreparedStatement acquire = c.prepareStatement(sql.acquire());
      PreparedStatement release = c.prepareStatement(sql.release());
      String k = key(i, contended);
      return () -> {
        UUID run = UUID.randomUUID();
        LeaseStatements.bindAcquire(acquire, "bench-sql", k, run, "bench", TTL.toNanos() / 1000, 0);
        // One statement answers both ways: granted with the fence, or refused with the holder's
        // row (which the store turns into its Busy answer without another round trip).
        Long fence = grantedFence(acquire);
        if (fence == null) {
          return false;
        }
        release.setObject(1, null, java.sql.Types.TIMESTAMP_WITH_TIMEZONE); // no hold after release
        release.setString(2, "bench-sql");
        release.setString(3, k);
        release.setObject(4, run);
        release.setLong(5, fence);
        firstLong(release);
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
          c.prepareStatement("DELETE FROM seed_lease WHERE account_id = ? AND session_id = ? AND run_id = ?");
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

  /** ShedLock's JDBC provider with database time: lock, then unlock. */
  Throughput.OpFactory shedLock(boolean contended, HikariDataSource pool) {
    JdbcTemplateLockProvider provider =
        new JdbcTemplateLockProvider(
            JdbcTemplateLockProvider.Configuration.builder()
                .withJdbcTemplate(new JdbcTemplate(pool))
                .usingDbTime()
                .build());
    return (i, n) -> {
      String k = key(i, contended);
      return () -> {
        Optional<SimpleLock> lock = provider.lock(new LockConfiguration(Instant.now(), k, TTL, Duration.ZERO));
        if (lock.isEmpty()) {
          return false;
        }
        lock.get().unlock();
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
    try (Connection c = db.connection();
        Statement s = c.createStatement()) {
      s.execute(
          "CREATE TABLE IF NOT EXISTS seed_lease (account_id text, session_id text, run_id uuid NOT NULL,"
              + " expires_at timestamptz NOT NULL, PRIMARY KEY (account_id, session_id))");
      s.execute(
          "CREATE TABLE IF NOT EXISTS shedlock (name VARCHAR(64) NOT NULL PRIMARY KEY, lock_until TIMESTAMP NOT NULL,"
              + " locked_at TIMESTAMP NOT NULL, locked_by VARCHAR(255) NOT NULL)");
      s.execute(
          "CREATE TABLE IF NOT EXISTS INT_LOCK (LOCK_KEY CHAR(36) NOT NULL, REGION VARCHAR(100) NOT NULL,"
              + " CLIENT_ID CHAR(36), CREATED_DATE TIMESTAMP NOT NULL, EXPIRED_AFTER TIMESTAMP NOT NULL,"
              + " CONSTRAINT INT_LOCK_PK PRIMARY KEY (LOCK_KEY, REGION))");
    }
  }

  /** Executes a pipelined statement and returns the first column of its statement's first row. */
  static Long firstLong(PreparedStatement ps) throws SQLException {
    boolean isResultSet = ps.execute();
    boolean timeoutsSet = false; // the first result set is the set_config row
    while (true) {
      if (isResultSet) {
        try (ResultSet rs = ps.getResultSet()) {
          if (timeoutsSet) {
            if (!rs.next()) {
              return null;
            }
            Object v = rs.getObject(1);
            return v instanceof Number num ? num.longValue() : (v == null ? null : 1L);
          }
          timeoutsSet = true;
        }
      } else if (ps.getUpdateCount() == -1) {
        return null;
      }
      isResultSet = ps.getMoreResults();
    }
  }

  /** Executes the pipelined acquire and returns the fence if it was granted, else null. */
  static Long grantedFence(PreparedStatement ps) throws SQLException {
    boolean isResultSet = ps.execute();
    isResultSet = ps.getMoreResults(); // past the set_config row
    if (!isResultSet) {
      throw new IllegalStateException("the acquire returned no result set");
    }
    try (ResultSet rs = ps.getResultSet()) {
      return rs.next() && rs.getBoolean(1) ? rs.getLong(2) : null;
    }
  }

  static List<String> names() {
    return List.of("Leasehold", "Leasehold SQL, bare JDBC", "seed SQL, bare JDBC", "ShedLock JDBC", "Spring JdbcLockRegistry",
        "Leasehold publishing live status");
  }
}
