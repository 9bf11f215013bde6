package io.leasehold.adapters.jdbc;

import io.leasehold.adapters.internal.LockTimeout;
import io.leasehold.adapters.internal.MarkResetTable;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.MarkReset;
import io.leasehold.fencing.TokenVerificationException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Every statement of the database writer, with the reasoning for each, and the binding and row
 * mapping that go with it. The admission policy (which statement runs when, and what a refusal
 * means) is {@link FencedJdbcWriter}'s. Every table name is schema-qualified: a look-alike table
 * earlier on the {@code search_path} is never used.
 */
final class HighWaterSql {
  private final String table;
  private final Duration lockTimeout;

  /** The SQLSTATE of a refusal in the admission-at-commit pipeline (a division by zero). */
  static final String REFUSED_IN_PIPELINE = "22012";

  /** The run id recorded in a mark an operator set: no run ever has it. */
  private static final String RESET_RUN = "00000000-0000-0000-0000-000000000000";

  /**
   * The admission: raise the mark or return nothing when stale. ON CONFLICT locks the key's row
   * whether or not the WHERE holds, so the mark cannot move until this transaction ends. (A plain
   * UPDATE with an INSERT for a key's first write, in one statement, measured no faster.)
   *
   * <p>It travels behind the transaction's {@code lock_timeout} ({@link LockTimeout}), as do
   * {@link #admitAndCommit} and {@link #lockMark}: each opens its transaction. With online verification, the proposed row exists only if the token's
   * run holds the lease ({@link LeaseRow#HELD_BY_TOKEN}: the key's row names its fence and run, not
   * released, not expired): no proposed row means no conflict, no lock, no admission. Parameters:
   * see {@link #bindAdmission}.
   */
  private final String admit;

  /** The mark of a key; after a refused admission, read under the row lock it took. */
  private final String mark;

  /** The lock timeout alone ({@link LockTimeout}), for a read's transaction. */
  private final String timeout;

  /**
   * Strict mode's last statement: the run's lease is live by database time. FOR SHARE keeps the
   * lease row from being renewed, released or taken over until the commit. Parameters: account,
   * session, run id, fence.
   */
  private final String liveLease;

  /**
   * Admission at commit: the admission (with its timeout), strict mode's check and the COMMIT,
   * one round trip. Each check divides by the number of rows it found, so a refusal is an error
   * (division by zero, {@value #REFUSED_IN_PIPELINE}) that makes PostgreSQL skip the rest of the
   * pipeline, COMMIT included; the caller then rolls back and reads the mark to say which check
   * refused. Parameters: the admission's, then strict mode's.
   */
  private final String admitAndCommit;

  /**
   * The key's lease row ({@link LeaseRow#COLUMNS}), read only to explain a refusal of online
   * verification. Parameters: account, session.
   */
  private final String leaseRow;

  /** The lease table of online verification, for messages, or null. */
  private final String verifyTable;

  /**
   * Mark reset, step 1: lock the key's row (if any), so no admission moves the mark between the
   * read of the previous value and the change.
   */
  private final String lockMark;

  /** Mark reset, step 2: set the mark, with a run id no run has. */
  private final String setMark;

  /** Mark reset, step 2 for a new mark of 0: forget the key. */
  private final String deleteMark;

  /** Mark reset, step 3, in the same transaction: the audit record ({@code <table>_audit}). */
  private final MarkResetTable audit;

  private final boolean online;
  private final boolean strict;

  /**
   * @param table the high-water table, schema-qualified
   * @param verifyTable the lease table for online verification, qualified, or null
   * @param leaseTable the lease table for strict mode, qualified, or null
   */
  HighWaterSql(String table, String verifyTable, String leaseTable, Duration lockTimeout) {
    this.table = table;
    this.lockTimeout = lockTimeout;
    this.online = verifyTable != null;
    this.verifyTable = verifyTable;
    this.strict = leaseTable != null;
    this.timeout = LockTimeout.statement(lockTimeout);
    String issuedWhere =
        verifyTable == null
            ? ""
            : " WHERE EXISTS (SELECT 1 FROM " + verifyTable + " AS l WHERE l.account_id = ? AND l.session_id = ?"
                + " AND " + LeaseRow.HELD_BY_TOKEN + ")";
    this.leaseRow =
        verifyTable == null
            ? null
            : "SELECT " + LeaseRow.COLUMNS + " FROM " + verifyTable + " AS l WHERE l.account_id = ? AND l.session_id = ?";
    String admission =
        "INSERT INTO " + table + " AS h (account_id, session_id, fence, run_id, admitted_at)"
            + " SELECT ?, ?, ?, ?, clock_timestamp()" + issuedWhere
            + " ON CONFLICT (account_id, session_id) DO UPDATE SET fence = EXCLUDED.fence,"
            + " run_id = EXCLUDED.run_id, admitted_at = EXCLUDED.admitted_at"
            // pg_catalog's operator by name: a search_path listing a schema before an explicit
            // pg_catalog would otherwise let a look-alike <= admit a stale fence and lower the mark.
            + " WHERE h.fence OPERATOR(pg_catalog.<=) EXCLUDED.fence";
    this.admit = LockTimeout.ahead(lockTimeout, admission + " RETURNING h.fence");
    this.mark =
        "SELECT fence FROM " + table + " WHERE account_id OPERATOR(pg_catalog.=) ?::text"
            + " AND session_id OPERATOR(pg_catalog.=) ?::text";
    this.liveLease =
        leaseTable == null
            ? null
            : "SELECT 1 FROM " + leaseTable
                + " WHERE account_id = ? AND session_id = ? AND run_id = ? AND fence = ?"
                + " AND released_at IS NULL AND expires_at > clock_timestamp() FOR SHARE";
    this.admitAndCommit =
        LockTimeout.ahead(lockTimeout, "WITH admitted AS (" + admission + " RETURNING 1) SELECT 1 / count(*) FROM admitted; ")
            + (leaseTable == null ? "" : "SELECT 1 / count(*) FROM (" + liveLease + ") AS live; ")
            + "COMMIT";
    this.lockMark = LockTimeout.ahead(lockTimeout, mark + " FOR UPDATE");
    this.setMark =
        "INSERT INTO " + table + " AS h (account_id, session_id, fence, run_id, admitted_at)"
            + " VALUES (?, ?, ?, '" + RESET_RUN + "', clock_timestamp())"
            + " ON CONFLICT (account_id, session_id) DO UPDATE SET fence = EXCLUDED.fence,"
            + " run_id = EXCLUDED.run_id, admitted_at = EXCLUDED.admitted_at";
    this.deleteMark = "DELETE FROM " + table + " WHERE account_id = ? AND session_id = ?";
    this.audit = new MarkResetTable(table + "_audit");
  }

  /** The lock timeout alone, for a transaction whose first statement does not carry it. */
  String timeout() {
    return timeout;
  }

  /** Whether tokens are verified online, inside the admission. */
  boolean online() {
    return online;
  }

  /** Whether strict mode's live-lease check runs before the commit. */
  boolean strict() {
    return strict;
  }

  /** Runs the admission; true if the mark was raised or kept, false if refused. */
  boolean admit(Connection c, FencingToken token) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(admit)) {
      bindAdmission(ps, token);
      try (ResultSet rs = LockTimeout.rowsAfter(ps)) {
        return rs.next();
      }
    }
  }

  /** Sends the admission, strict mode's check and the COMMIT in one round trip. */
  void admitAndCommit(Connection c, FencingToken token) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(admitAndCommit)) {
      int next = bindAdmission(ps, token);
      if (strict) {
        bindLiveLease(ps, token, next);
      }
      ps.execute();
    }
  }

  OptionalLong mark(Connection c, LeaseKey key) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(mark)) {
      bindKey(ps, key);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? OptionalLong.of(rs.getLong(1)) : OptionalLong.empty();
      }
    }
  }

  /** The key's mark, its row locked until the transaction ends (if there is a row). */
  long lockedMark(Connection c, LeaseKey key) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(lockMark)) {
      bindKey(ps, key);
      try (ResultSet rs = LockTimeout.rowsAfter(ps)) {
        return rs.next() ? rs.getLong(1) : 0;
      }
    }
  }

  /**
   * Why online verification refuses the token (its run does not hold the lease), read from the
   * key's lease row now; empty without online verification, or if the run holds the lease.
   */
  Optional<TokenVerificationException> onlineRefusal(Connection c, FencingToken token) throws SQLException {
    if (leaseRow == null) {
      return Optional.empty();
    }
    try (PreparedStatement ps = c.prepareStatement(leaseRow)) {
      bindKey(ps, token.key());
      try (ResultSet rs = ps.executeQuery()) {
        Optional<LeaseRow> row = rs.next() ? Optional.of(LeaseRow.read(rs)) : Optional.empty();
        return LeaseRow.refusal(verifyTable, token, row);
      }
    }
  }

  /** Whether the run holds a live lease, locking the lease row until the commit. */
  boolean liveLease(Connection c, FencingToken token) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(liveLease)) {
      bindLiveLease(ps, token, 1);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next();
      }
    }
  }

  /** The three steps of a reset, in the caller's transaction; returns the recorded reset. */
  MarkReset reset(Connection c, LeaseKey key, long newMark, String operator, String reason) throws SQLException {
    long previous = lockedMark(c, key);
    try (PreparedStatement ps = c.prepareStatement(newMark == 0 ? deleteMark : setMark)) {
      bindKey(ps, key);
      if (newMark != 0) {
        ps.setLong(3, newMark);
      }
      ps.executeUpdate();
    }
    return audit.record(c, key, previous, newMark, operator, reason);
  }

  List<MarkReset> resets(Connection c) throws SQLException {
    return audit.readAll(c);
  }

  private static void bindKey(PreparedStatement ps, LeaseKey key) throws SQLException {
    ps.setString(1, key.accountId());
    ps.setString(2, key.sessionId());
  }

  /**
   * Binds the admission's parameters: account, session, fence, run id, then the online check's.
   *
   * @return the next parameter index
   */
  private int bindAdmission(PreparedStatement ps, FencingToken token) throws SQLException {
    bindKey(ps, token.key());
    ps.setLong(3, token.fence());
    ps.setObject(4, token.runId());
    return online ? bindIssued(ps, token, 5) : 5;
  }

  /** Binds the online check (account, session, fence, run id) from parameter {@code first}. */
  private static int bindIssued(PreparedStatement ps, FencingToken token, int first) throws SQLException {
    ps.setString(first, token.key().accountId());
    ps.setString(first + 1, token.key().sessionId());
    ps.setLong(first + 2, token.fence());
    ps.setObject(first + 3, token.runId());
    return first + 4;
  }

  /** Binds strict mode's check (account, session, run id, fence) from parameter {@code first}. */
  private static void bindLiveLease(PreparedStatement ps, FencingToken token, int first) throws SQLException {
    ps.setString(first, token.key().accountId());
    ps.setString(first + 1, token.key().sessionId());
    ps.setObject(first + 2, token.runId());
    ps.setLong(first + 3, token.fence());
  }

  /** CONTRACT C21: a lock wait that ran out names what it waited for and where to look. */
  String waitedFor(LeaseKey key, SQLException e) {
    if (!"55P03".equals(e.getSQLState())) {
      return "";
    }
    return ". It waited " + lockTimeout.toMillis() + " ms (lockTimeout) for a row lock another transaction"
        + " holds: the mark row of " + key + " in " + table + ", or a row the work locks (or for the"
        + " table itself, locked by a migration or a LOCK TABLE). Another"
        + " writer of the key is mid-transaction, or a stuck session holds it: find it in pg_locks and"
        + " pg_stat_activity";
  }

}
