package io.leasehold.lease;

import io.leasehold.fencing.LeaseKey;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.UUID;

/**
 * The one door from the feature packages of lease-core's tests to the store's package-private
 * parts: the statements as the store sends them, the renewal chunk size, and counters a test waits
 * on. Test code only; nothing here is a user's API.
 */
public final class StoreInternals {
  /** Leases renewed per statement ({@link ChunkedRenewal#CHUNK}). */
  public static final int RENEWAL_CHUNK = ChunkedRenewal.CHUNK;

  private StoreInternals() {}

  /**
   * The acquire statement of a store on the default schema and a shared pool that does not publish,
   * in the form the store sends to {@code dataSource}'s database (one PostgreSQL's or Citus's).
   */
  public static String acquireStatement(javax.sql.DataSource dataSource) throws SQLException {
    AcquireStatements statements = acquireStatements();
    return onCitus(dataSource) ? statements.acquireOnCitus : statements.acquire;
  }

  /** The first-acquire statement (one text for every database). */
  public static String acquireNewStatement() {
    return acquireStatements().acquireNew;
  }

  private static AcquireStatements acquireStatements() {
    return new AcquireStatements(null, settings(), null, false, Duration.ZERO);
  }

  /** Binds the acquire statement's parameters as a store with no takeover delay does. */
  public static void bindAcquire(
      PreparedStatement ps, LeaseKey key, UUID runId, String holder, long ttlMicros)
      throws SQLException {
    AcquireStatements.bindAcquire(ps, key, runId, holder, ttlMicros, 0);
  }

  /** Binds the first-acquire statement's parameters as the store does. */
  public static void bindAcquireNew(
      PreparedStatement ps, LeaseKey key, UUID runId, String holder, long ttlMicros)
      throws SQLException {
    AcquireStatements.bindAcquireNew(ps, key, runId, holder, ttlMicros);
  }

  /**
   * {@code statement} in the pipelined short transaction every statement of a shared pool runs in.
   */
  public static String shortTransaction(
      Duration lockTimeout, Duration statementTimeout, String statement) {
    return StatementSettings.shortTransaction(lockTimeout, statementTimeout, statement);
  }

  /** How many acquires of the store are waiting now. */
  public static int waiterCount(LeaseStore store) {
    return store.waiterCount();
  }

  /** How many batches of the store's changes could not be published. */
  public static long publishFailures(LeaseStore store) {
    return store.publishFailures();
  }

  /**
   * {@link FailoverSafety}'s verdict on the given settings of a server with fsync on, without a
   * database.
   */
  public static FailoverSafety judgeFailoverSafety(
      String synchronousCommit,
      String standbyNames,
      int standbys,
      int syncStandbys,
      boolean inRecovery) {
    return FailoverSafety.judge(
        true, synchronousCommit, standbyNames, standbys, syncStandbys, inRecovery);
  }

  /** The backend process id of the watcher's listening connection. */
  public static int backendPid(LeaseWatcher watcher) {
    return watcher.backendPid();
  }

  /** Whether a store on {@code dataSource} finds a Citus coordinator there. */
  public static boolean onCitus(javax.sql.DataSource dataSource) throws SQLException {
    try (java.sql.Connection c = dataSource.getConnection()) {
      return new StatementRunner(dataSource, settings()).onCitus(c);
    }
  }

  /**
   * Runs {@code sql} as a store on a Citus coordinator runs its statements (on a shared pool, with
   * the given timeouts), whatever the database is.
   *
   * @return column 1 of the first row of the statement's answer
   * @throws LeaseStoreException if the statement fails
   */
  public static String runAsOnCitus(
      javax.sql.DataSource dataSource,
      Duration lockTimeout,
      Duration statementTimeout,
      String sql) {
    StatementSettings settings =
        new StatementSettings(LeaseSchema.defaults(), lockTimeout, statementTimeout, false);
    return new StatementRunner(dataSource, settings, true)
        .execute(
            sql,
            () -> "run " + sql,
            ps -> {},
            (rs, opened) -> {
              rs.next();
              return rs.getString(1);
            });
  }

  private static StatementSettings settings() {
    return new StatementSettings(
        LeaseSchema.defaults(), Duration.ofSeconds(1), Duration.ofSeconds(5), false);
  }

  /** A {@code timestamptz} column as the store reads it ({@link StatementRunner#instant}). */
  public static java.time.Instant readTimestamp(java.sql.ResultSet rs, int column)
      throws SQLException {
    return StatementRunner.instant(rs, column);
  }
}
