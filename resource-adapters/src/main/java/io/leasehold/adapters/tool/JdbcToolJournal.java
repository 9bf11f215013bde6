package io.leasehold.adapters.tool;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.leasehold.adapters.ResourceAccessException;
import io.leasehold.adapters.internal.AnswerBound;
import io.leasehold.adapters.internal.LockTimeout;
import io.leasehold.adapters.internal.SqlMarkStore;
import io.leasehold.adapters.internal.Transactions;
import io.leasehold.fencing.Admission;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.MarkReset;
import io.leasehold.fencing.StaleFenceException;
import io.leasehold.fencing.internal.Arguments;
import io.leasehold.fencing.mark.MarkStoreException;
import java.io.IOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * A tool journal kept in PostgreSQL: the default for services that run more than one process, which
 * have that database already. Calls, marks and mark resets are rows ({@link ToolJournalSchema});
 * nothing to compact, no file format to damage. The marks are the SQL mark store the database
 * writer uses too ({@code SqlMarkStore}), with the journal's admitted calls as the evidence against
 * which a mark deleted, lowered or made negative outside the journal refuses every call of its key
 * (as {@link ResourceAccessException}) until an operator resets it. The admission locks the key's
 * mark row, so admissions of one key are serialized across every process, and a repeat of a call in
 * flight (same run, tool and idempotency key) is refused under that lock. A call's intent,
 * admission and start are one transaction, its outcome another.
 *
 * <pre>{@code
 * ToolJournalSchema.defaults().apply(dataSource);
 * FencedToolExecutor tools = FencedToolExecutor.builder()
 *     .verifier(TokenVerifier.signedBy(keys))
 *     .journal(JdbcToolJournal.create(dataSource))
 *     .tool(sendEmail)
 *     .build();
 * }</pre>
 *
 * <p>Mark resets are dated by the database's clock.
 *
 * <p>Thread-safe.
 */
public final class JdbcToolJournal implements ToolJournal {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final DataSource dataSource;
  private final JournalSql sql;
  private final SqlMarkStore marks;
  private final java.time.Duration lockTimeout;

  /** How long a transaction waits for an answer at all (CONTRACT C21): a stopped server too. */
  private final AnswerBound bound;

  private final StartedCallKeys startedKeys = new StartedCallKeys();

  /** Whether the database is a Citus coordinator; null until the first transaction asks. */
  private volatile Boolean citus;

  /** The default lock wait: as the database writer's. */
  public static final java.time.Duration DEFAULT_LOCK_TIMEOUT = java.time.Duration.ofSeconds(5);

  private JdbcToolJournal(
      DataSource dataSource, ToolJournalSchema schema, java.time.Duration lockTimeout) {
    this.dataSource = dataSource;
    this.lockTimeout = lockTimeout;
    this.bound = AnswerBound.forLockTimeout(lockTimeout);
    this.marks = SqlMarkStore.journalMarks(schema.prefix());
    this.sql = JournalSql.of(schema, marks.table(), lockTimeout);
  }

  /**
   * A journal on the default tables.
   *
   * @param dataSource the database, with {@link ToolJournalSchema#apply} run
   * @return the journal
   */
  public static JdbcToolJournal create(DataSource dataSource) {
    return create(dataSource, ToolJournalSchema.defaults());
  }

  /**
   * A journal on the given tables.
   *
   * @param dataSource the database, with {@link ToolJournalSchema#apply} run
   * @param schema the tables
   * @return the journal
   */
  public static JdbcToolJournal create(DataSource dataSource, ToolJournalSchema schema) {
    return create(dataSource, schema, DEFAULT_LOCK_TIMEOUT);
  }

  /**
   * A journal on the given tables, with a lock wait of its own.
   *
   * @param dataSource the database, with {@link ToolJournalSchema#apply} run
   * @param schema the tables
   * @param lockTimeout how long a call waits for a row lock another transaction holds (a key's mark
   *     row, a duplicate call's row), from 1 ms to 1 h (CONTRACT C21); past it the call fails with
   *     {@link ResourceAccessException} naming the table, and nothing is recorded. Default 5 s.
   * @return the journal
   */
  public static JdbcToolJournal create(
      DataSource dataSource, ToolJournalSchema schema, java.time.Duration lockTimeout) {
    if (dataSource == null || schema == null) {
      throw new IllegalArgumentException("dataSource and schema must not be null");
    }
    if (lockTimeout == null
        || lockTimeout.toMillis() < 1
        || lockTimeout.compareTo(java.time.Duration.ofHours(1)) > 0) {
      throw new IllegalArgumentException(
          "lockTimeout must be between 1 ms and 1 h, got " + lockTimeout);
    }
    return new JdbcToolJournal(dataSource, schema, lockTimeout);
  }

  /** One transaction, which sets the lock timeout first. */
  private <T> T tx(String what, Transactions.Body<T> work) {
    return tx(what, false, work);
  }

  /**
   * One transaction, committed after {@code work} (through {@link Transactions}: rolled back on any
   * throwable before auto-commit is restored).
   *
   * @param setsTimeout whether the work's first statement carries the lock timeout ({@link
   *     JournalSql#intend}, {@link JournalSql#setOutcome}), which spares a round trip
   */
  private <T> T tx(String what, boolean setsTimeout, Transactions.Body<T> work) {
    try (Connection c = dataSource.getConnection()) {
      return bound.around(
          c,
          (b, callers) ->
              Transactions.run(
                  b,
                  conn -> {
                    if (onCitus(conn)) {
                      // The row locks are waited for on the workers, which set_config does not
                      // reach.
                      try (Statement st = conn.createStatement()) {
                        st.execute(LockTimeout.onCitusWorkers(lockTimeout));
                      }
                    }
                    if (!setsTimeout) {
                      try (PreparedStatement ps = conn.prepareStatement(sql.lockTimeout())) {
                        ps.execute();
                      }
                    }
                    T result = work.run(conn);
                    AnswerBound.commit(conn::commit);
                    return result;
                  }));
    } catch (MarkStoreException e) {
      if (e.getCause() instanceof SQLException failure) {
        throw failed(what, failure);
      }
      // A mark that cannot be trusted: refused as the journal refuses a damaged call row.
      throw new ResourceAccessException(
          "tool journal in " + sql.call() + " could not " + what + ": " + e.getMessage(), e);
    } catch (SQLException e) {
      throw failed(what, e);
    }
  }

  /**
   * Whether the database is a Citus coordinator, asked on the first transaction only: there each
   * transaction carries the lock timeout to the workers first ({@link LockTimeout#onCitusWorkers}),
   * one more round trip; on one PostgreSQL nothing more is sent.
   */
  private boolean onCitus(Connection c) throws SQLException {
    Boolean known = citus;
    if (known == null) {
      known = LockTimeout.askOnCitus(c);
      citus = known;
    }
    return known;
  }

  private ResourceAccessException failed(String what, SQLException e) {
    return new ResourceAccessException(
        "tool journal in "
            + sql.call()
            + " could not "
            + what
            + ": "
            + e.getMessage()
            + " (SQLState "
            + e.getSQLState()
            + (e.getSQLState() != null && e.getSQLState().equals("42P01")
                ? "; run ToolJournalSchema.apply first"
                : "")
            + ("55P03".equals(e.getSQLState())
                ? "; waited "
                    + lockTimeout.toMillis()
                    + " ms (lockTimeout) for a lock on "
                    + sql.mark()
                    + " or "
                    + sql.call()
                    + " (a row, or the table) that another transaction holds: find it in pg_locks and pg_stat_activity"
                : "")
            + ")"
            + bound.waitedFor(e),
        e);
  }

  @Override
  public void intended(ToolCall c) {
    Long stale = tx("record an intended call", true, conn -> recordIntent(conn, c));
    if (stale != null) {
      throw stale(c.token(), stale);
    }
  }

  /**
   * Records the intent, or returns the key's mark when it is already above the call's fence (and
   * records nothing: a stale run's calls add no row, issue 27, C21).
   */
  private Long recordIntent(Connection conn, ToolCall c) throws SQLException {
    try (PreparedStatement ps = conn.prepareStatement(sql.intend())) {
      ps.setString(1, c.token().key().accountId());
      ps.setString(2, c.token().key().sessionId());
      ps.setLong(3, c.token().fence());
      ps.setObject(4, c.callId());
      ps.setString(5, c.token().key().accountId());
      ps.setString(6, c.token().key().sessionId());
      ps.setString(7, c.tool());
      ps.setString(8, c.token().unsigned().toText()); // never the signature (C20)
      ps.setLong(9, c.token().fence());
      ps.setObject(10, c.token().runId());
      ps.setString(11, json(c.arguments()));
      ps.setString(12, c.idempotencyKey().orElse(null));
      if (LockTimeout.countAfter(ps) == 1) {
        return null;
      }
    }
    return marks.read(conn, c.token().key()).orElse(0);
  }

  private static StaleFenceException stale(FencingToken token, long mark) {
    return new StaleFenceException(token, Math.max(mark, token.fence() + 1));
  }

  @Override
  public Admission admitAndStart(FencingToken token, UUID callId) {
    return started(callId, token, tx("admit a call", c -> admitAndStart(c, token, callId)));
  }

  /**
   * {@inheritDoc}
   *
   * <p>Here the intent, the admission and the start are one transaction: one commit to wait for
   * before the tool runs, instead of one for the intent and one for the start, and a call whose
   * admission fails (a lock wait that timed out, a lost connection) leaves no row that would later
   * be listed as in doubt, since it never started. A refused call is recorded as {@link
   * #admitAndStart} records it.
   */
  @Override
  public Admission start(ToolCall call) {
    return started(
        call.callId(),
        call.token(),
        tx(
            "record and admit a call",
            true,
            c -> {
              Long stale = recordIntent(c, call);
              return stale != null
                  ? stale(call.token(), stale)
                  : admitAndStart(c, call.token(), call.callId());
            }));
  }

  /**
   * The admission of a call whose start committed, its key remembered for the outcome ({@link
   * StartedCallKeys}); or the refusal, thrown.
   */
  private Admission started(UUID callId, FencingToken token, Object outcome) {
    Admission admission = admission(outcome);
    startedKeys.started(callId, token.key());
    return admission;
  }

  /** The admission a transaction returned, or its refusal thrown once the transaction committed. */
  private static Admission admission(Object outcome) {
    if (outcome instanceof RuntimeException e) {
      throw e; // the refusal was recorded and committed first
    }
    return (Admission) outcome;
  }

  /** Admits the token and starts the call in the caller's transaction; a refusal is returned. */
  private Object admitAndStart(Connection c, FencingToken token, UUID callId) throws SQLException {
    // The mark row stays locked until the commit: the raise and the start commit together.
    Admission admission;
    try {
      admission = marks.admit(c, token);
    } catch (StaleFenceException e) {
      refuse(c, token.key(), callId, "stale; highest fence " + e.highestFence());
      return e;
    }
    // Start the call, unless it repeats one in flight: one statement answers both, so the
    // duplicate always learns which call it repeats (JournalSql#start says why).
    UUID started;
    UUID inFlight;
    try (PreparedStatement ps = JournalSql.keyed(c, sql.start(), token.key())) {
      ps.setObject(3, callId);
      ps.setString(4, token.key().accountId());
      ps.setString(5, token.key().sessionId());
      ps.setObject(6, callId);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        started = rs.getObject(1, UUID.class);
        inFlight = rs.getObject(2, UUID.class);
      }
    }
    if (started != null) {
      return admission;
    }
    if (inFlight == null) {
      throw new SQLException("call " + callId + " was never journaled as intended");
    }
    refuse(c, token.key(), callId, "duplicate of call " + inFlight + " in flight");
    ToolCall refused = read(c, token.key(), callId);
    return new DuplicateCallException(
        refused.tool(), refused.idempotencyKey().orElseThrow(), inFlight);
  }

  @Override
  public Admission admit(FencingToken token) {
    Arguments.required(token, "token");
    return admission(
        tx(
            "admit a run",
            c -> {
              try {
                return marks.admit(c, token);
              } catch (StaleFenceException e) {
                return e;
              }
            }));
  }

  /** Records a call as refused, in the transaction under way. */
  private void refuse(Connection c, LeaseKey key, UUID callId, String why) throws SQLException {
    try (PreparedStatement ps =
        JournalSql.outcome(c, sql.setState(), key, callId, "REFUSED", null, why)) {
      JournalSql.requireCall(callId, ps.executeUpdate());
    }
  }

  /**
   * Records a call's outcome in a transaction of its own, which the statement opens (the lock
   * timeout comes with it). It names the key where this journal started the call, else the call id
   * alone ({@link StartedCallKeys}); one round trip either way.
   */
  private void recordOutcome(
      String what, UUID callId, String state, JsonNode result, String error) {
    LeaseKey key = startedKeys.key(callId);
    String update = key == null ? sql.setOutcomeByCallId() : sql.setOutcome();
    tx(
        what,
        true,
        c -> {
          try (PreparedStatement ps =
              JournalSql.outcome(
                  c, update, key, callId, state, result == null ? null : json(result), error)) {
            JournalSql.requireCall(callId, LockTimeout.countAfter(ps));
          }
          return null;
        });
    startedKeys.ended(callId);
  }

  @Override
  public void finished(UUID callId, JsonNode result) {
    recordOutcome("record a finished call", callId, "FINISHED", result, null);
  }

  @Override
  public void failed(UUID callId, String error) {
    recordOutcome("record a failed call", callId, "FAILED", null, error);
  }

  @Override
  public List<ToolCall> calls(LeaseKey key) {
    return rowsOfKey("read the calls of " + key, sql.callsOfKey(), key, sql::readCall);
  }

  /** Reads one value from the current row of a result. */
  @FunctionalInterface
  private interface RowReader<T> {
    T read(ResultSet rs) throws SQLException;
  }

  /** Every row of a statement whose parameters are the key, read in the statement's order. */
  private <T> List<T> rowsOfKey(String what, String statement, LeaseKey key, RowReader<T> row) {
    return tx(
        what,
        c -> {
          try (PreparedStatement ps = JournalSql.keyed(c, statement, key);
              ResultSet rs = ps.executeQuery()) {
            List<T> out = new ArrayList<>();
            while (rs.next()) {
              out.add(row.read(rs));
            }
            return out;
          }
        });
  }

  private ToolCall read(Connection c, LeaseKey key, UUID callId) throws SQLException {
    try (PreparedStatement ps = JournalSql.keyed(c, sql.callById(), key)) {
      ps.setObject(3, callId);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return sql.readCall(rs);
      }
    }
  }

  @Override
  public OptionalLong highWaterMark(LeaseKey key) {
    return tx("read the mark of " + key, c -> marks.read(c, key));
  }

  @Override
  public MarkReset resetMark(LeaseKey key, long newMark, String operator, String reason) {
    return tx(
        "reset the mark of " + key,
        c -> {
          // Dated by the database's clock, as every time the journal keeps.
          return marks.reset(c, key, newMark, operator, reason, null);
        });
  }

  @Override
  public List<MarkReset> markResets() {
    return tx("read the mark resets", marks::resets);
  }

  @Override
  public Optional<JsonNode> finishedResult(LeaseKey key, String tool, String idempotencyKey) {
    return tx(
        "look up a finished call",
        c -> {
          try (PreparedStatement ps = JournalSql.keyed(c, sql.finishedResult(), key)) {
            ps.setString(3, tool);
            ps.setString(4, idempotencyKey);
            try (ResultSet rs = ps.executeQuery()) {
              if (!rs.next()) {
                return Optional.empty();
              }
              return Optional.of(JSON.readTree(rs.getString(1)));
            } catch (IOException e) {
              throw new SQLException("damaged result in " + sql.call() + ": " + e.getMessage(), e);
            }
          }
        });
  }

  /**
   * The admission order of a key's started calls, by fence: what the guard contract checks.
   *
   * @param key the key
   * @return the fences of started calls in admission order
   */
  List<Long> admittedFences(LeaseKey key) {
    return rowsOfKey(
        "read the admissions of " + key, sql.admittedFences(), key, rs -> rs.getLong(1));
  }

  private static String json(JsonNode node) throws SQLException {
    try {
      return JSON.writeValueAsString(node);
    } catch (IOException e) {
      throw new SQLException("could not write JSON: " + e.getMessage(), e);
    }
  }

  @Override
  public String toString() {
    return "JdbcToolJournal[" + sql.call() + "]";
  }
}
