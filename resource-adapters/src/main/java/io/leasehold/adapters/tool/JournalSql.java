package io.leasehold.adapters.tool;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.leasehold.adapters.internal.KeyParameters;
import io.leasehold.adapters.internal.LockTimeout;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import java.io.IOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Optional;
import java.util.UUID;

/**
 * Every statement of the PostgreSQL tool journal ({@link JdbcToolJournal}) on its calls, built once
 * from the schema's validated prefix (request data always travels as bind parameters). Each runs
 * inside the journal's own short transaction.
 *
 * <p>Tables: {@code <prefix>_call}, a row per call (its key, token text, fence and run, state);
 * {@code <prefix>_admission_seq}, the order in which calls were admitted. The marks ({@code
 * <prefix>_mark}, a row per key with the highest admitted fence and the admission sequence value of
 * its last reset) are a {@link io.leasehold.adapters.internal.SqlMarkStore}, whose evidence is the
 * admitted calls of this table; only {@link #intend} reads them here.
 *
 * @param call the call table
 * @param mark the mark table
 */
record JournalSql(
    String call,
    String mark,
    String lockTimeout,
    String intend,
    String start,
    String setState,
    String setOutcome,
    String setOutcomeByCallId,
    String callsOfKey,
    String callById,
    String finishedResult,
    String admittedFences) {
  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * A key's calls in journal order. Calls numbered by a Citus worker's copy of the sequence (an
   * earlier build let the column's default number them there; worker group g draws from g * 2^48
   * up) come before every call numbered since, which the coordinator's sequence numbers from 1:
   * they were journaled before. On one PostgreSQL every number is below 2^48.
   */
  private static final String ORDER_BY_SEQ = " ORDER BY seq < 281474976710656, seq";

  /**
   * The statements on the tables named by {@code schema}.
   *
   * @param mark the mark table ({@link io.leasehold.adapters.internal.SqlMarkStore#table})
   * @param lockTimeout the longest wait for a row lock, validated by the journal
   */
  static JournalSql of(ToolJournalSchema schema, String mark, java.time.Duration lockTimeout) {
    // Every wait of a transaction for a lock ends (CONTRACT C21, LockTimeout says how). The hot
    // path's first statements travel behind the setting in one round trip; the others'
    // transactions send it alone first.
    String call = schema.prefix() + "_call";
    String setOutcomeOfAnyKey =
        "UPDATE " + call + " SET state = ?, result = ?::json, error = ? WHERE call_id = ?";
    String setState =
        "UPDATE "
            + call
            + " SET state = ?, result = ?::json, error = ?"
            + " WHERE account_id = ? AND session_id = ? AND call_id = ?";
    String admissionSeq = schema.prefix() + "_admission_seq";
    String callColumns =
        "SELECT call_id, tool, token, arguments::text, idempotency_key, state, result::text, error, fence, run_id,"
            + " account_id, session_id FROM "
            + call;
    return new JournalSql(
        call,
        mark,
        // The lock timeout, alone: the first statement of a transaction off the hot path.
        LockTimeout.statement(lockTimeout),
        // Records an intended call: its key, tool, token (text, and fence and run for queries),
        // arguments. Only if the key's mark is not already above the fence: a stale run's calls
        // add no row (issue 27, C21). Without a lock: the admission checks again under the mark
        // row's lock, and a call that lost that race is recorded as refused there. The first
        // statement of a call's transaction, so the lock timeout comes with it.
        // The order of a key's calls (seq) and their time are drawn here, not left to the
        // columns' defaults: on Citus a default is evaluated on the worker that holds the key's
        // shard, where each worker's copy of the sequence has a range of its own, so a key's
        // calls listed out of order once its shard moved (red team 48, P15). Citus evaluates a
        // volatile expression of an INSERT ... SELECT's select list on the coordinator, but binds
        // a column the expression names to the select list's column at the same position, not
        // to the column named: GREATEST(nextval, the key's highest seq + 1) read a null there,
        // so it was nextval alone. Each expression here names no column, then; the calls a
        // worker numbered before (2^48 and up) are listed first by the reads' ORDER_BY_SEQ
        // instead (docs/scale-out.md). Parameters: account, session, fence; then call id,
        // account, session, tool, token text, fence, run id, arguments, idempotency key.
        LockTimeout.ahead(
            lockTimeout,
            "WITH prior AS (SELECT (SELECT 1 FROM "
                + mark
                + " WHERE account_id = ? AND session_id = ? AND fence > ? LIMIT 1) AS stale)"
                + " INSERT INTO "
                + call
                + " (call_id, account_id, session_id, tool, token, fence, run_id, arguments,"
                + " idempotency_key, state, seq, recorded_at) SELECT ?, ?, ?, ?, ?, ?, ?, ?::json,"
                + " ?, 'INTENDED', nextval(pg_get_serial_sequence('"
                + call
                + "', 'seq')), clock_timestamp() FROM prior AS p WHERE p.stale IS NULL"),
        // Starts an admitted call, numbering it in admission order, unless a call of the same
        // run with the same tool and idempotency key is in flight: then nothing changes, the
        // statement returns that call's id, and the caller records the refusal. Both answers
        // come from one statement, so from one snapshot: asked in a second statement, the
        // in-flight call could have finished in between and the duplicate found neither (issue
        // 46). Race-free without a savepoint: every start of a key holds the key's mark row
        // lock, taken by the admission (SqlMarkStore), so this snapshot sees every other start of
        // the key that committed. The admission number is drawn in the CTE n, under that lock, so
        // its order is still the order of admission; not in the SET list, where Citus refuses a
        // volatile function, and nested in the update's own CTE, which Citus plans on the
        // coordinator, where the sequence is (a top-level CTE would go to the worker whole). Every
        // part names the key, so Citus routes it to the key's shard (docs/scale-out.md). The unique
        // index on in-flight calls stays as the last
        // word; a violation rolls the whole transaction back. Returns one row: the started call's
        // id (null if not started) and the in-flight duplicate's (null if none). Parameters:
        // account, session, call id, account, session, call id.
        "WITH dup AS (SELECT d.call_id FROM "
            + call
            + " AS me JOIN "
            + call
            + " AS d ON d.account_id = me.account_id"
            + " AND d.session_id = me.session_id AND d.tool = me.tool AND d.idempotency_key = me.idempotency_key"
            + " AND d.run_id = me.run_id AND d.state = 'STARTED'"
            + " WHERE me.account_id = ? AND me.session_id = ? AND me.call_id = ? LIMIT 1),"
            + " started AS (WITH n AS (SELECT nextval('"
            + admissionSeq
            + "') AS v) UPDATE "
            + call
            + " AS me SET state = 'STARTED', admitted_seq = (SELECT v FROM n)"
            + " WHERE me.account_id = ? AND me.session_id = ? AND me.call_id = ? AND me.state = 'INTENDED'"
            + " AND NOT EXISTS (SELECT 1 FROM dup) RETURNING me.call_id)"
            + " SELECT (SELECT call_id FROM started), (SELECT call_id FROM dup)",
        // A call's state and outcome, in a transaction already under way. It names the key, so
        // Citus routes it to the key's shard. Parameters: state, result (JSON text or null),
        // error, account, session, call id.
        setState,
        // The same as the first statement of the outcome's own transaction: the lock timeout
        // comes with it, before the update can wait for the call's row.
        LockTimeout.ahead(lockTimeout, setState),
        // The outcome of a call whose key the journal does not know (StartedCallKeys says when):
        // by call id alone, which on Citus is an update of every shard, and refused unless it
        // changes one row (requireCall). Parameters: state, result, error, call id.
        LockTimeout.ahead(lockTimeout, setOutcomeOfAnyKey),
        // A key's calls in the order they were journaled. Parameters: account, session.
        callColumns + " WHERE account_id = ? AND session_id = ?" + ORDER_BY_SEQ,
        // One call of a key. Parameters: account, session, call id.
        callColumns + " WHERE account_id = ? AND session_id = ? AND call_id = ?",
        // The first finished result of an idempotent call, for a replay. Parameters: account,
        // session, tool, idempotency key.
        "SELECT result::text FROM "
            + call
            + " WHERE account_id = ? AND session_id = ? AND tool = ?"
            + " AND idempotency_key = ? AND state = 'FINISHED'"
            + ORDER_BY_SEQ
            + " LIMIT 1",
        // A key's started calls by fence, in admission order: what the guard contract checks.
        // Parameters: account, session.
        "SELECT fence FROM "
            + call
            + " WHERE account_id = ? AND session_id = ? AND admitted_seq IS NOT NULL"
            + " ORDER BY admitted_seq");
  }

  /**
   * Prepares a statement whose first two parameters are the key's account and session, and binds
   * them; the caller binds the rest and closes it.
   */
  static PreparedStatement keyed(Connection c, String sql, LeaseKey key) throws SQLException {
    PreparedStatement ps = c.prepareStatement(sql);
    KeyParameters.bind(ps, 1, key);
    return ps;
  }

  /**
   * A row of {@link #callsOfKey} or {@link #callById} as a call. Its token text must agree with its
   * key, fence and run columns (issue 27): those columns are what admissions and the mark check
   * compare, so a row whose text says otherwise was edited outside the journal, and is damage, not
   * an answer.
   */
  ToolCall readCall(ResultSet rs) throws SQLException {
    try {
      String result = rs.getString(7);
      FencingToken token = FencingToken.parse(rs.getString(3));
      if (token.fence() != rs.getLong(9)
          || !token.runId().equals(rs.getObject(10, UUID.class))
          || !token.key().equals(LeaseKey.of(rs.getString(11), rs.getString(12)))) {
        throw new IllegalArgumentException(
            "call "
                + rs.getObject(1, UUID.class)
                + ": its token text ("
                + token
                + ") disagrees with its"
                + " fence "
                + rs.getLong(9)
                + " and run columns; the row was edited outside the journal");
      }
      return new ToolCall(
          rs.getObject(1, UUID.class),
          rs.getString(2),
          token,
          JSON.readTree(rs.getString(4)),
          Optional.ofNullable(rs.getString(5)),
          ToolCall.State.valueOf(rs.getString(6)),
          result == null ? Optional.empty() : Optional.of(JSON.readTree(result)),
          Optional.ofNullable(rs.getString(8)));
    } catch (IOException | IllegalArgumentException e) {
      throw new SQLException("damaged row in " + call + ": " + e.getMessage(), e);
    }
  }

  /**
   * Prepares an outcome's update ({@link #setState}, {@link #setOutcome}, {@link
   * #setOutcomeByCallId}) and binds it: state, result, error, the key unless null, the call. The
   * caller closes it.
   */
  static PreparedStatement outcome(
      Connection c,
      String update,
      LeaseKey key,
      java.util.UUID callId,
      String state,
      String resultJson,
      String error)
      throws SQLException {
    PreparedStatement ps = c.prepareStatement(update);
    ps.setString(1, state);
    ps.setString(2, resultJson);
    ps.setString(3, error);
    int at = 4;
    if (key != null) {
      ps.setString(at++, key.accountId());
      ps.setString(at++, key.sessionId());
    }
    ps.setObject(at, callId);
    return ps;
  }

  /**
   * Fails unless an outcome's update changed exactly the call's row; the transaction then rolls
   * back, so nothing is recorded. More than one row can only be an update by call id alone on
   * Citus, where a call id is unique per account only (a caller that gave two keys' calls one id).
   */
  static void requireCall(java.util.UUID callId, int updated) throws SQLException {
    if (updated == 0) {
      throw new SQLException("call " + callId + " was never journaled as intended");
    }
    if (updated != 1) {
      throw new SQLException(
          "call id "
              + callId
              + " names "
              + updated
              + " calls of different keys (on a distributed journal a call id is unique per"
              + " account only), so nothing was recorded: record the outcome through the journal"
              + " that started the call, which knows its key, or give every call its own id");
    }
  }
}
