package io.leasehold.adapters.internal;

import io.leasehold.fencing.Admission;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.MarkReset;
import io.leasehold.fencing.StaleFenceException;
import io.leasehold.fencing.mark.MarkStore;
import io.leasehold.fencing.mark.MarkStoreException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Supplier;

/**
 * The SQL medium of the mark store: a row per lease key in a PostgreSQL table, raised by one
 * conditional UPSERT inside the caller's transaction, used by the database writer (its high-water
 * table, {@link #highWater}) and the PostgreSQL tool journal (its {@code <prefix>_mark} table,
 * {@link #journalMarks}). Every statement on a mark table is here, with the rules that make it fail
 * closed (CONTRACT C16), once for both tables:
 *
 * <ul>
 *   <li>a fence below the mark is refused ({@link StaleFenceException}), and the row lock the
 *       admission takes holds the mark until the transaction ends, refused or not;
 *   <li>a negative mark is no mark: every admission of the key refuses ({@link MarkStoreException})
 *       until an operator resets it;
 *   <li>a mark below the evidence of what was admitted since the key's last reset was deleted or
 *       lowered outside Leasehold: refused the same way. The journal's evidence is its admitted
 *       calls; the high-water table has none (the writer's effects are the caller's own rows, so
 *       its mark row is the only record, and a deleted row reads as a key never written:
 *       docs/security.md says who may write the table).
 * </ul>
 *
 * <p>The two tables differ only in {@link SqlMarkShape}: the high-water table also records the
 * admitted run and the time ({@code run_id}, {@code admitted_at}; the Node guard writes the same
 * columns), and a mark of 0 is no row; the journal's row stays at 0 after a reset and keeps the
 * reset's admission sequence value ({@code reset_seq}), from which its evidence counts. The row
 * lock's read and the admission as a transaction's first statement carry the transaction's lock
 * timeout ({@link LockTimeout}) in the same round trip, and every operator, cast and function of
 * the mark statements is {@code pg_catalog}'s, named: a search_path that lists a schema before an
 * explicit {@code pg_catalog} cannot slip in a look-alike {@code <=} or {@code =}.
 *
 * <p>Thread-safe (immutable); the unit of work is a connection with a transaction under way, which
 * the caller commits or rolls back.
 */
public final class SqlMarkStore implements MarkStore<Connection> {
  /** pg_catalog's equality, named: a look-alike earlier on the search_path is never used. */
  static final String EQ = " OPERATOR(pg_catalog.=) ";

  private final String table;

  /** Carried ahead of the statements that open a transaction, or null where the guard sets it. */
  private final Duration lockTimeout;

  private final SqlMarkShape shape;
  private final SqlAdmissionCondition condition;
  private final MarkResetTable audit;

  /**
   * The admission: raise the key's mark to the token's fence, or return no row. The candidate row
   * {@code k} is the token; ON CONFLICT locks the key's row whether or not the WHERE holds, so the
   * mark cannot move until this transaction ends. It raises only a trusted mark at most the fence
   * ({@link SqlMarkShape#trusted}); a key without a row is inserted only if nothing was admitted
   * for it (its evidence, counted from sequence 0, is at most 0), and only if the guard's {@link
   * SqlAdmissionCondition} holds. A row another transaction inserts meanwhile turns the insert into
   * the conflict path, which checks that row once it is committed. (A plain UPDATE with an INSERT
   * for a key's first admission, in one statement, measured no faster.) Parameters: {@link
   * #bindAdmission}.
   */
  private final String admission;

  /** The admission that returns a row if it admitted. */
  private final String returning;

  /** {@link #returning} behind the lock timeout, built once for {@link #admitFirst}, or null. */
  private final String returningFirst;

  /**
   * The key's row, locked until the transaction ends (nothing if it has none): its mark, its
   * evidence, and whether the mark is trusted. Behind the lock timeout where the store carries it
   * (the writer's transactions open with this statement; the journal's set it first). One round
   * trip: the evidence reads the calls as this statement's snapshot saw them, which holds every
   * admission committed before it; an admission it waited for raised the mark it returns, so a call
   * missing from that snapshot is never above the mark. Parameters: account, session, as many times
   * as {@link #lockedRowKeys}.
   */
  private final String lockedRow;

  /** How many times {@link #lockedRow} takes the key's account and session. */
  private final int lockedRowKeys;

  /** The journal's admission, where the shape has evidence (else null). */
  private final EvidenceAdmission evidenceAdmission;

  /**
   * The same, without a lock and for a key with or without a row (then the mark is null, and the
   * evidence counts every admitted call): what explains a refused admission. Parameters: account,
   * session.
   */
  private final String explainedRow;

  /** The mark alone. Parameters: account, session. */
  private final String mark;

  /**
   * A reset's new mark: inserted or overwritten, whatever the row held (the reset is the repair of
   * a mark the rules refuse). The journal's row draws a new {@code reset_seq}, so only calls
   * admitted after the reset count as its evidence. Parameters: account, session, new mark.
   */
  private final String setMark;

  /** A high-water reset to 0: the key has no row. Parameters: account, session. */
  private final String deleteMark;

  private SqlMarkStore(
      String table,
      String auditTable,
      Duration lockTimeout,
      SqlMarkShape shape,
      SqlAdmissionCondition condition) {
    this.table = table;
    this.lockTimeout = lockTimeout;
    this.shape = shape;
    this.condition = condition;
    this.audit = new MarkResetTable(auditTable);
    String text = "?::pg_catalog.text";
    // The key as parameters: account, session.
    String keyParameters = text + ", " + text;
    String key = sameKey("m", text, text);
    String inserted =
        "EXISTS (SELECT 1 FROM "
            + table
            + " AS e WHERE "
            + sameKey("e", "k.account_id", "k.session_id")
            + ") OR "
            + SqlMarkShape.trusted("0", shape.evidence("k.account_id", "k.session_id", "0"));
    this.admission =
        shape.admitted().insertInto(table)
            + " SELECT k.account_id, k.session_id, k.fence"
            + shape.admitted().values()
            + " FROM (VALUES ("
            + keyParameters
            + ", ?::pg_catalog.int8"
            + shape.candidate().values()
            + "))"
            + " AS k(account_id, session_id, fence"
            + shape.candidate().names()
            + ")"
            + " WHERE "
            + (shape.hasEvidence() ? "(" + inserted + ")" : "true")
            + (condition == null ? "" : " AND " + condition.sql())
            + shape.admitted().onConflictUpdate()
            + " WHERE m.fence OPERATOR(pg_catalog.<=) EXCLUDED.fence AND "
            + SqlMarkShape.trusted(
                "m.fence", shape.evidence("m.account_id", "m.session_id", "m.reset_seq"));
    this.returning = admission + " RETURNING 1";
    this.returningFirst = lockTimeout == null ? null : LockTimeout.ahead(lockTimeout, returning);
    // The locked read's evidence names the key by parameters, not by the row's columns: Citus
    // takes a FOR UPDATE only where it can route every table of the statement to one shard
    // (docs/scale-out.md). Its parameters: the key once per evidence, then the key.
    String rowEvidence = shape.evidence(text, text, "m.reset_seq");
    this.lockedRowKeys = shape.hasEvidence() ? 3 : 1;
    String lockRow =
        "SELECT m.fence AS fence, "
            + SqlMarkShape.column(rowEvidence)
            + " AS evidence, "
            + SqlMarkShape.trusted("m.fence", rowEvidence)
            + " AS trusted FROM "
            + table
            + " AS m WHERE "
            + key
            + " FOR UPDATE OF m";
    this.lockedRow = lockTimeout == null ? lockRow : LockTimeout.ahead(lockTimeout, lockRow);
    String keyEvidence =
        shape.evidence(
            "k.account_id", "k.session_id", shape.hasEvidence() ? "COALESCE(m.reset_seq, 0)" : "0");
    this.explainedRow =
        "SELECT m.fence AS fence, "
            + SqlMarkShape.column(keyEvidence)
            + " AS evidence, "
            + SqlMarkShape.trusted("COALESCE(m.fence, 0)", keyEvidence)
            + " AS trusted"
            + " FROM (VALUES ("
            + keyParameters
            + ")) AS k(account_id, session_id) LEFT JOIN "
            + table
            + " AS m ON "
            + sameKey("m", "k.account_id", "k.session_id");
    this.evidenceAdmission = shape.hasEvidence() ? new EvidenceAdmission(this, shape, key) : null;
    this.mark = "SELECT m.fence FROM " + table + " AS m WHERE " + key;
    this.setMark =
        shape.reset().insertInto(table)
            + " VALUES (?, ?, ?"
            + shape.reset().values()
            + ")"
            + shape.reset().onConflictUpdate();
    this.deleteMark = "DELETE FROM " + table + " AS m WHERE " + key;
  }

  /**
   * The database writer's high-water table ({@code HighWaterSchema}): a row per admitted key with
   * its mark, the run that presented it and when; a mark of 0 is no row; resets are recorded in
   * {@code <table>_audit}. No evidence beyond the row itself.
   *
   * @param table the table, schema-qualified
   * @param lockTimeout the longest wait for the key's row, carried by the statement that opens a
   *     transaction
   * @param condition what else an admission requires (online verification), or null
   * @return the store
   */
  public static SqlMarkStore highWater(
      String table, Duration lockTimeout, SqlAdmissionCondition condition) {
    return new SqlMarkStore(
        table, table + "_audit", lockTimeout, SqlMarkShape.HIGH_WATER, condition);
  }

  /**
   * The PostgreSQL tool journal's {@code <prefix>_mark} table: a row per key with its mark and the
   * admission sequence value of its last reset, kept at 0 after a reset to 0; resets recorded in
   * {@code <prefix>_mark_reset}. Its evidence is the highest fence of the calls admitted since the
   * key's last reset, read backwards through the partial index on admitted calls.
   *
   * <p>The journal's transactions set their lock timeout before the store's first statement, so
   * none of its statements carries it (and {@link #admitFirst} is not for the journal).
   *
   * @param prefix the journal's validated table prefix
   * @return the store
   */
  public static SqlMarkStore journalMarks(String prefix) {
    return new SqlMarkStore(
        prefix + "_mark",
        prefix + "_mark_reset",
        null,
        SqlMarkShape.journal(prefix + "_call", prefix + "_admission_seq"),
        null);
  }

  /** The mark table's name, for messages and for statements of the guard that read it. */
  public String table() {
    return table;
  }

  /**
   * {@inheritDoc}
   *
   * <p>Two statements: the key's row is locked and checked, then raised; a journal key already at
   * the token's fence is admitted by the lock alone. A refusal of the guard's {@link
   * SqlAdmissionCondition} is thrown as the condition explains it. The previous mark is exact,
   * unless the key had no row and another transaction inserted one first (then it is 0).
   */
  @Override
  public Admission admit(Connection unit, FencingToken token) {
    try {
      return evidenceAdmission != null
          ? evidenceAdmission.admit(unit, token)
          : admitLocked(unit, token);
    } catch (SQLException e) {
      throw failed("admit " + token, e);
    }
  }

  private Admission admitLocked(Connection unit, FencingToken token) throws SQLException {
    Optional<SqlMarkRow> row = lockedRow(unit, token.key());
    long previous = row.map(SqlMarkRow::mark).orElse(0L);
    if (row.isPresent()) {
      row.get().requireTrusted(table, token.key());
      if (token.fence() < previous) {
        throw new StaleFenceException(token, previous);
      }
      if (token.fence() == previous && condition == null && !shape.recordsRun()) {
        return new Admission(token, previous); // the row lock holds it: nothing to raise
      }
    }
    raise(unit, token, false);
    return new Admission(token, previous);
  }

  /**
   * Admits without reading the previous mark: the admission alone, behind the lock timeout, as the
   * first statement of the caller's transaction (the database writer's hot path, one round trip).
   *
   * @param unit the transaction
   * @param token the verified token
   * @throws StaleFenceException if the fence is below the mark
   * @throws MarkStoreException if the mark is not trusted
   * @throws RuntimeException the {@link SqlAdmissionCondition}'s refusal (as from {@link #admit})
   * @throws SQLException if the database fails
   */
  public void admitFirst(Connection unit, FencingToken token) throws SQLException {
    if (returningFirst == null) {
      throw new IllegalStateException(
          table + ": this store's statements do not carry the lock timeout");
    }
    raise(unit, token, true);
  }

  private void raise(Connection unit, FencingToken token, boolean first) throws SQLException {
    boolean admitted;
    try (PreparedStatement ps = unit.prepareStatement(first ? returningFirst : returning)) {
      bindAdmission(ps, token);
      try (ResultSet rs = first ? LockTimeout.rowsAfter(ps) : ps.executeQuery()) {
        admitted = rs.next();
      }
    }
    if (!admitted) {
      throw refusal(unit, token).orElseThrow(() -> unexplained(token));
    }
  }

  SQLException unexplained(FencingToken token) {
    return new SQLException(
        "the admission of " + token + " into " + table + " was refused, and no rule explains why");
  }

  /**
   * The admission as a pipeline's check: it divides by the number of rows admitted, so a refusal is
   * a division by zero (SQLSTATE 22012) that makes PostgreSQL skip the rest of the pipeline, the
   * COMMIT included; {@link #refusal} then says why. Parameters: {@link #bindAdmission}.
   *
   * @return the statement, without a terminator and without the lock timeout
   */
  public String admissionOrDivisionByZero() {
    return "WITH admitted AS (" + admission + " RETURNING 1) SELECT 1 / count(*) FROM admitted";
  }

  /**
   * Binds the admission's parameters: account, session, fence, (high-water) run id, then the {@link
   * SqlAdmissionCondition}'s.
   *
   * @param ps the statement
   * @param token the token
   * @return the next parameter index
   * @throws SQLException if binding fails
   */
  public int bindAdmission(PreparedStatement ps, FencingToken token) throws SQLException {
    ps.setString(1, token.key().accountId());
    ps.setString(2, token.key().sessionId());
    ps.setLong(3, token.fence());
    int next = 4;
    if (shape.recordsRun()) {
      ps.setObject(next++, token.runId());
    }
    return condition == null ? next : condition.binder().bind(ps, token, next);
  }

  /**
   * Why an admission of {@code token} was refused, read after it (without a lock; the refused
   * admission took the row's lock if there was a row): an untrusted mark ({@link
   * MarkStoreException}), a stale fence, or the {@link SqlAdmissionCondition}'s own reason; empty
   * if none of them holds now (a condition refused that can no longer say why, or strict mode's
   * check).
   *
   * @param unit a connection (its transaction may have been rolled back)
   * @param token the refused token
   * @return the refusal to throw
   * @throws SQLException if the database fails
   */
  public Optional<RuntimeException> refusal(Connection unit, FencingToken token)
      throws SQLException {
    SqlMarkRow row;
    try (PreparedStatement ps = keyed(unit, explainedRow, token.key());
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      row = SqlMarkRow.read(rs);
    }
    if (!row.trusted()) {
      return Optional.of(row.damage(table, token.key()));
    }
    if (row.mark() > token.fence()) {
      return Optional.of(new StaleFenceException(token, row.mark()));
    }
    return condition == null ? Optional.empty() : condition.explainer().explain(unit, token);
  }

  @Override
  public OptionalLong read(Connection unit, LeaseKey key) {
    try (PreparedStatement ps = keyed(unit, mark, key);
        ResultSet rs = ps.executeQuery()) {
      long fence = rs.next() ? rs.getLong("fence") : 0;
      return fence == 0 ? OptionalLong.empty() : OptionalLong.of(fence);
    } catch (SQLException e) {
      throw failed("read the mark of " + key, e);
    }
  }

  /**
   * {@inheritDoc}
   *
   * <p>Locks the key's row, sets it (a high-water reset to 0 deletes it) and appends the record, in
   * the caller's transaction; the record is dated by the database's clock, not {@code at}.
   * Unchecked: the reset is the repair of a mark the rules refuse. A negative previous mark is
   * recorded as 0.
   */
  @Override
  public MarkReset reset(
      Connection unit, LeaseKey key, long newMark, String operator, String reason, Instant at) {
    try {
      long previous = Math.max(0, lockedRow(unit, key).map(SqlMarkRow::mark).orElse(0L));
      boolean delete = newMark == 0 && !shape.hasEvidence();
      try (PreparedStatement ps = keyed(unit, delete ? deleteMark : setMark, key)) {
        if (!delete) {
          ps.setLong(3, newMark);
        }
        ps.executeUpdate();
      }
      return audit.record(unit, key, previous, newMark, operator, reason);
    } catch (SQLException e) {
      throw failed("reset the mark of " + key, e);
    }
  }

  @Override
  public List<MarkReset> resets(Connection unit) {
    try {
      return audit.readAll(unit);
    } catch (SQLException e) {
      throw failed("read the mark resets", e);
    }
  }

  Optional<SqlMarkRow> lockedRow(Connection c, LeaseKey key) throws SQLException {
    try (PreparedStatement ps = keyed(c, lockedRow, key, lockedRowKeys);
        ResultSet rs = lockTimeout == null ? ps.executeQuery() : LockTimeout.rowsAfter(ps)) {
      return rs.next() ? Optional.of(SqlMarkRow.read(rs)) : Optional.empty();
    }
  }

  /**
   * The SQLException of a statement, as the SPI's exception; its SQLState stays on the cause (a
   * lock wait that ran out is 55P03, which the guards name).
   */
  private MarkStoreException failed(String what, SQLException e) {
    return new MarkStoreException("could not " + what + " in " + table + ": " + e.getMessage(), e);
  }

  /**
   * Runs a call on a store inside a transaction body that throws {@link SQLException}: a failure of
   * the database comes back as the SQLException it was, so the guard names a lock wait or a missing
   * table from its SQLState as for its own statements; refusals and damage are thrown as they are.
   *
   * @param call the call
   * @param <T> its result
   * @return its result
   * @throws SQLException if the database failed
   */
  public static <T> T sqlFailures(Supplier<T> call) throws SQLException {
    try {
      return call.get();
    } catch (MarkStoreException e) {
      if (e.getCause() instanceof SQLException failure) {
        throw failure;
      }
      throw e;
    }
  }

  /**
   * SQL: the key of the row {@code row} (an alias) is the given account and session expressions, by
   * pg_catalog's equality.
   */
  static String sameKey(String row, String account, String session) {
    return row + ".account_id" + EQ + account + " AND " + row + ".session_id" + EQ + session;
  }

  static PreparedStatement keyed(Connection c, String sql, LeaseKey key) throws SQLException {
    return keyed(c, sql, key, 1);
  }

  /** Prepares a statement whose parameters are the key's account and session, {@code times}. */
  private static PreparedStatement keyed(Connection c, String sql, LeaseKey key, int times)
      throws SQLException {
    PreparedStatement ps = c.prepareStatement(sql);
    for (int i = 0; i < times; i++) {
      ps.setString(2 * i + 1, key.accountId());
      ps.setString(2 * i + 2, key.sessionId());
    }
    return ps;
  }
}
