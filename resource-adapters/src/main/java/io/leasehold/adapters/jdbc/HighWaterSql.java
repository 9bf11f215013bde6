package io.leasehold.adapters.jdbc;

import io.leasehold.adapters.internal.AnswerBound;
import io.leasehold.adapters.internal.KeyParameters;
import io.leasehold.adapters.internal.LockTimeout;
import io.leasehold.adapters.internal.SqlAdmissionCondition;
import io.leasehold.adapters.internal.SqlMarkStore;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.LeaseLostException;
import io.leasehold.fencing.TokenVerificationException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.Optional;

/**
 * The database writer's statements beyond its marks, with the reasoning for each, and the binding
 * and row mapping that go with it: online verification (a condition of the admission), strict
 * mode's live-lease check, and the admission-at-commit pipeline. The marks themselves (the
 * high-water table) are a {@link SqlMarkStore}, {@link #marks()}. The admission policy (which
 * statement runs when, and what a refusal means) is {@link FencedJdbcWriter}'s. Every table name is
 * schema-qualified: a look-alike table earlier on the {@code search_path} is never used.
 */
final class HighWaterSql {
  /** The SQLSTATE of a refusal in the admission-at-commit pipeline (a division by zero). */
  static final String REFUSED_IN_PIPELINE = "22012";

  private final String table;
  private final Duration lockTimeout;
  private final SqlMarkStore marks;

  /**
   * Strict mode's last statement: the run's lease row, locked FOR SHARE so the lease cannot be
   * renewed, released or taken over until the commit, then the database's clock ({@link
   * LeaseRow#THEN_CLOCK}), read once the lock is held: the lease is live if its expiry is after
   * that reading. On Citus the clock is the coordinator's, as for every expiry decision (C2); the
   * row's statement runs on the key's worker. Parameters: account, session, run id, fence.
   */
  private final String liveLease;

  /**
   * The same check inside one statement, the clock of the node that runs it: the admission-at-
   * commit pipeline's, on plain PostgreSQL only (on Citus that would be the worker's clock, so the
   * writer commits there after {@link #checkLease}).
   */
  private final String liveLeaseInStatement;

  /**
   * Admission at commit: the admission (behind its timeout), strict mode's check and the COMMIT,
   * one round trip. Each check divides by the number of rows it found, so a refusal is an error
   * (division by zero, {@value #REFUSED_IN_PIPELINE}) that makes PostgreSQL skip the rest of the
   * pipeline, COMMIT included; the caller then rolls back and asks the marks which check refused.
   * Parameters: the admission's, then strict mode's.
   */
  private final String admitAndCommit;

  /**
   * The key's lease row ({@link LeaseRow#COLUMNS}), read only to explain a refusal of online
   * verification. Parameters: account, session.
   */
  private final String leaseRow;

  /** The lease table of online verification, for messages, or null. */
  private final String verifyTable;

  private final boolean strict;

  /** The lease table of strict mode, for messages, or null. */
  private final String leaseTable;

  /** The bound on the database's answers (CONTRACT C21), which names itself in a failure. */
  AnswerBound bound() {
    return AnswerBound.forLockTimeout(lockTimeout);
  }

  /**
   * @param table the high-water table, schema-qualified
   * @param verifyTable the lease table for online verification, qualified, or null
   * @param leaseTable the lease table for strict mode, qualified, or null
   */
  HighWaterSql(String table, String verifyTable, String leaseTable, Duration lockTimeout) {
    this.table = table;
    this.lockTimeout = lockTimeout;
    this.verifyTable = verifyTable;
    this.strict = leaseTable != null;
    this.leaseTable = leaseTable;
    this.leaseRow =
        verifyTable == null
            ? null
            : "SELECT "
                + LeaseRow.COLUMNS
                + " FROM "
                + verifyTable
                + " AS l WHERE l.account_id = ? AND l.session_id = ?"
                + LeaseRow.THEN_CLOCK;
    // With online verification, the admission's candidate row exists only if the token's run
    // holds the lease (LeaseRow.HELD_BY_TOKEN: the key's row names its fence and run, not
    // released, not expired): no candidate means no conflict, no lock, no admission. Parameters:
    // account, session, fence, run id.
    SqlAdmissionCondition online =
        verifyTable == null
            ? null
            : new SqlAdmissionCondition(
                "EXISTS (SELECT 1 FROM "
                    + verifyTable
                    + " AS l WHERE l.account_id = ? AND l.session_id = ?"
                    + " AND "
                    + LeaseRow.HELD_BY_TOKEN
                    + ")",
                HighWaterSql::bindIssued,
                this::notHeld);
    this.marks = SqlMarkStore.highWater(table, lockTimeout, online);
    String lockLease =
        leaseTable == null
            ? null
            : "SELECT l.expires_at FROM "
                + leaseTable
                + " AS l WHERE l.account_id = ? AND l.session_id = ? AND l.run_id = ? AND l.fence = ?"
                + " AND l.released_at IS NULL";
    this.liveLease = lockLease == null ? null : lockLease + " FOR SHARE" + LeaseRow.THEN_CLOCK;
    this.liveLeaseInStatement =
        lockLease == null ? null : lockLease + " AND l.expires_at > clock_timestamp() FOR SHARE";
    this.admitAndCommit =
        LockTimeout.ahead(lockTimeout, marks.admissionOrDivisionByZero() + "; ")
            + (leaseTable == null
                ? ""
                : "SELECT 1 / count(*) FROM (" + liveLeaseInStatement + ") AS live; ")
            + "COMMIT";
  }

  /** The high-water table's marks. */
  SqlMarkStore marks() {
    return marks;
  }

  /** Whether strict mode's live-lease check runs before the commit. */
  boolean strict() {
    return strict;
  }

  /** Sends the admission, strict mode's check and the COMMIT in one round trip. */
  void admitAndCommit(Connection c, FencingToken token) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(admitAndCommit)) {
      int next = marks.bindAdmission(ps, token);
      if (strict) {
        bindLiveLease(ps, token, next);
      }
      ps.execute();
    }
  }

  /**
   * Why online verification refused the token (its run does not hold the lease), read from the
   * key's lease row now. If the row now says the run holds the lease (it cannot come back once
   * released, expired or superseded, so only a row changed by hand), the refusal stands with the
   * general reason.
   */
  private Optional<RuntimeException> notHeld(Connection c, FencingToken token) throws SQLException {
    return Optional.of(
        leaseRefusal(c, token)
            .orElseGet(
                () ->
                    new TokenVerificationException(
                        TokenVerificationException.Reason.NOT_ISSUED,
                        "refused "
                            + token
                            + ": "
                            + verifyTable
                            + " did not show run "
                            + token.runId()
                            + " holding the lease of "
                            + token.key()
                            + " with fence "
                            + token.fence()
                            + " when the admission ran; nothing changed")));
  }

  /**
   * Why the key's lease row, read now, says the token's run does not hold the lease, if it does.
   */
  private Optional<TokenVerificationException> leaseRefusal(Connection c, FencingToken token)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(leaseRow)) {
      KeyParameters.bind(ps, 1, token.key());
      return LeaseRow.refusal(verifyTable, token, LeaseRow.query(ps, 0));
    }
  }

  /**
   * The checks that decide by the lease's expiry, run last before the commit, each with the
   * database's clock read after the lease row ({@link LeaseRow#THEN_CLOCK}): strict mode's live
   * lease (its row locked until the commit), and on Citus online verification's expiry again, by
   * the coordinator's clock (the admission statement's own check ran on the key's worker, with its
   * clock). One round trip each; none without strict mode or, off Citus, online verification.
   *
   * @throws LeaseLostException if strict mode finds no live lease
   * @throws TokenVerificationException if online verification finds the run no longer holds it
   */
  void checkLease(Connection c, FencingToken token, boolean citus) throws SQLException {
    if (strict && !liveLease(c, token)) {
      throw new LeaseLostException(token, "no live lease in " + leaseTable + " at commit");
    }
    if (citus && verifyTable != null) {
      Optional<TokenVerificationException> refusal = leaseRefusal(c, token);
      if (refusal.isPresent()) {
        throw refusal.get();
      }
    }
  }

  /** Whether the run holds a live lease, locking the lease row until the commit. */
  private boolean liveLease(Connection c, FencingToken token) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(liveLease)) {
      bindLiveLease(ps, token, 1);
      ps.execute();
      Instant expiresAt;
      try (ResultSet rs = ps.getResultSet()) {
        expiresAt = rs.next() ? rs.getObject(1, OffsetDateTime.class).toInstant() : null;
      }
      Instant now = LeaseRow.clock(ps);
      return expiresAt != null && expiresAt.isAfter(now);
    }
  }

  /** Binds the online check (account, session, fence, run id) from parameter {@code first}. */
  private static int bindIssued(PreparedStatement ps, FencingToken token, int first)
      throws SQLException {
    int next = KeyParameters.bind(ps, first, token.key());
    ps.setLong(next, token.fence());
    ps.setObject(next + 1, token.runId());
    return next + 2;
  }

  /** Binds strict mode's check (account, session, run id, fence) from parameter {@code first}. */
  private static void bindLiveLease(PreparedStatement ps, FencingToken token, int first)
      throws SQLException {
    int next = KeyParameters.bind(ps, first, token.key());
    ps.setObject(next, token.runId());
    ps.setLong(next + 1, token.fence());
  }

  /** CONTRACT C21: a lock wait that ran out names what it waited for and where to look. */
  String waitedFor(LeaseKey key, SQLException e) {
    if (!"55P03".equals(e.getSQLState())) {
      return bound().waitedFor(e);
    }
    return ". It waited "
        + lockTimeout.toMillis()
        + " ms (lockTimeout) for a row lock another transaction"
        + " holds: the mark row of "
        + key
        + " in "
        + table
        + ", or a row the work locks (or for the"
        + " table itself, locked by a migration or a LOCK TABLE). Another"
        + " writer of the key is mid-transaction, or a stuck session holds it: find it in pg_locks and"
        + " pg_stat_activity";
  }
}
