package io.leasehold.lease;

import java.time.Duration;

/**
 * Every statement the lease store sends, in one place, built once per store from validated
 * identifiers (never from request data: values always travel as bind parameters).
 *
 * <p>Each statement is sent as one pipelined string {@code SELECT set_config('lock_timeout', ...,
 * true), set_config('statement_timeout', ..., true); <statement>} on an auto-commit connection.
 * The driver sends both parts in one round trip with one Sync, and PostgreSQL runs everything up
 * to a Sync as one implicit transaction: the two timeouts ({@code set_config(..., true)} is {@code
 * SET LOCAL}) hold for the statement and end with it, the statement commits at the Sync, and a
 * failure rolls the whole back (CONTRACT C5). No extra round trip, and no explicit BEGIN or
 * COMMIT to pay for.
 *
 * <p>Expiry is decided by {@code clock_timestamp()} (CONTRACT C2), read once per statement in a
 * {@code now} CTE so that every comparison and every new timestamp in one statement agree.
 */
final class LeaseSql {
  /**
   * Acquire (CONTRACT C1, C3). One conditional UPSERT: the primary key decides races; a row comes
   * back only if this run now holds the lease.
   *
   * <p>The row is never deleted (release marks it), so after a key's first acquire every acquire
   * takes the ON CONFLICT path, where the fence is drawn by {@code nextval} inside {@code DO
   * UPDATE SET}, which PostgreSQL evaluates only after it has locked the conflicting row and
   * checked the WHERE clause. A fence drawn there is therefore higher than the fence of every run
   * that held the row before. The inserted row's fence is drawn only when the statement's snapshot
   * has no row for the key (the key's first acquire; {@code COALESCE} evaluates {@code nextval}
   * lazily), so refused attempts do not use up sequence values; if a concurrent first acquire
   * wins the insert, the value is skipped and the ON CONFLICT path draws a fresh one. When a row
   * exists, the inserted values are never used: the insert always conflicts, because rows are
   * never deleted (a purge of old rows would have to keep that true for acquires in flight).
   *
   * <p>The existing lease may be taken over when it was released, or when it expired at least the
   * takeover delay ago; both by the statement's single database time. That time is read before
   * the statement waits for the row lock, so a release that commits during the wait carries a
   * later time than ours: the new lease then starts at the release's time ({@code GREATEST}), so
   * that no lease ever starts before its predecessor ended (the torture run's checker found the
   * microseconds of overlap this prevents). Parameters: account,
   * session, run id, account, session (for the fence lookup), holder, ttl (microseconds), takeover
   * delay (microseconds).
   */
  final String acquire;

  /**
   * Renew many leases in one statement (CONTRACT C4). A lease is extended only if the row still
   * names the same run and fence, was not released and has not expired by database time: a run
   * that expired cannot come back with a late heartbeat, even if nobody took over. The row locks
   * taken are only those of the matching leases. Parameters: arrays of account, session, run id,
   * fence, ttl (microseconds), all of equal length. Returns one row per renewed lease (run id, new
   * expiry) with the database time, or a single row with only the database time.
   */
  final String renew;

  /**
   * Release (CONTRACT C4). Matches key, run id and fence, and only a live lease: a stale run's
   * release can touch neither a newer run's lease nor an expired row (which stays subject to the
   * takeover delay). The row is kept and marked, so the next acquire draws its fence after the row
   * lock (see {@link #acquire}). Parameters: account, session, run id, fence.
   */
  final String release;

  /**
   * Status (CONTRACT C7): the key's row, if any, and the database clock, in one read. The LEFT
   * JOIN returns the clock even for a key never acquired. Parameters: account, session.
   */
  final String status;

  private static final String COMMIT = "";

  /** The opening of every pipelined short transaction; timeouts in whole milliseconds. */
  static String begin(Duration lockTimeout, Duration statementTimeout) {
    return begin(lockTimeout, statementTimeout, "");
  }

  static String begin(Duration lockTimeout, Duration statementTimeout, String more) {
    // One statement for both timeouts: measurably cheaper than two SET commands.
    return "SELECT set_config('lock_timeout', '"
        + lockTimeout.toMillis()
        + "', true), set_config('statement_timeout', '"
        + statementTimeout.toMillis()
        + "', true)"
        + more
        + "; ";
  }

  /** {@code statement} wrapped in a pipelined short transaction. */
  static String shortTransaction(Duration lockTimeout, Duration statementTimeout, String statement) {
    return begin(lockTimeout, statementTimeout) + statement + COMMIT;
  }

  LeaseSql(LeaseSchema schema, Duration lockTimeout, Duration statementTimeout) {
    this(schema, lockTimeout, statementTimeout, true);
  }

  /**
   * @param notify false to tell the table's trigger not to notify live-status listeners of this
   *     store's changes ({@code leasehold.notify = off} for each statement): PostgreSQL serializes
   *     the commits of all notifying transactions, which halves acquire throughput at 16 clients
   */
  LeaseSql(LeaseSchema schema, Duration lockTimeout, Duration statementTimeout, boolean notify) {
    String t = schema.table();
    String seq = schema.sequence();
    String quiet = notify ? "" : ", set_config('leasehold.notify', 'off', true)";
    String begin = begin(lockTimeout, statementTimeout, quiet);
    String commit = COMMIT;

    acquire =
        begin
            + "WITH now AS (SELECT clock_timestamp() AS t) "
            + "INSERT INTO " + t + " AS l (account_id, session_id, run_id, fence, holder,"
            + " acquired_at, renewed_at, expires_at, released_at) "
            + "SELECT ?, ?, ?, COALESCE((SELECT f.fence FROM " + t + " AS f"
            + " WHERE f.account_id = ? AND f.session_id = ?), nextval('" + seq + "')), ?, now.t, now.t,"
            + " now.t + ? * interval '1 microsecond', NULL FROM now "
            + "ON CONFLICT (account_id, session_id) DO UPDATE SET"
            + " run_id = EXCLUDED.run_id, fence = nextval('" + seq + "'), holder = EXCLUDED.holder,"
            + " acquired_at = GREATEST(EXCLUDED.acquired_at, l.released_at),"
            + " renewed_at = GREATEST(EXCLUDED.acquired_at, l.released_at),"
            + " expires_at = GREATEST(EXCLUDED.acquired_at, l.released_at)"
            + " + (EXCLUDED.expires_at - EXCLUDED.acquired_at), released_at = NULL "
            + "WHERE l.released_at IS NOT NULL"
            + " OR l.expires_at + ? * interval '1 microsecond' <= EXCLUDED.acquired_at "
            + "RETURNING l.fence, l.acquired_at, l.expires_at"
            + commit;

    // The planner cannot know how many leases the arrays hold (it guesses 100) and, right after a
    // burst of new leases, underestimates the table: the nested loop over a sequential scan it
    // then picks took over 5 s for 10,000 leases in a table of 110,000 (the benchmark found it).
    // Without sequential scans it probes the primary key, whatever the statistics say.
    renew =
        begin(lockTimeout, statementTimeout, quiet + ", set_config('enable_seqscan', 'off', true)")
            + "WITH now AS (SELECT clock_timestamp() AS t), "
            + "req AS (SELECT * FROM unnest(?::text[], ?::text[], ?::uuid[], ?::bigint[], ?::bigint[])"
            + " AS r(account_id, session_id, run_id, fence, ttl_us)), "
            + "upd AS (UPDATE " + t + " AS l SET"
            + " expires_at = now.t + req.ttl_us * interval '1 microsecond', renewed_at = now.t "
            + "FROM now, req "
            + "WHERE l.account_id = req.account_id AND l.session_id = req.session_id"
            + " AND l.run_id = req.run_id AND l.fence = req.fence"
            + " AND l.released_at IS NULL AND l.expires_at > now.t "
            + "RETURNING l.run_id, l.expires_at) "
            // The outer join yields the database time even when nothing was renewed.
            + "SELECT now.t, upd.run_id, upd.expires_at FROM now LEFT JOIN upd ON true"
            + commit;

    release =
        begin
            + "WITH now AS (SELECT clock_timestamp() AS t), "
            + "upd AS (UPDATE " + t + " AS l SET released_at = now.t, expires_at = now.t "
            + "FROM now "
            + "WHERE l.account_id = ? AND l.session_id = ? AND l.run_id = ? AND l.fence = ?"
            + " AND l.released_at IS NULL AND l.expires_at > now.t "
            + "RETURNING 1) "
            // One row whatever happened: the database time and whether a lease was released.
            + "SELECT now.t, EXISTS (SELECT 1 FROM upd) FROM now"
            + commit;

    status =
        begin
            + "SELECT now.t, l.run_id, l.fence, l.holder, l.acquired_at, l.expires_at, l.released_at "
            + "FROM (SELECT clock_timestamp() AS t) AS now "
            + "LEFT JOIN " + t + " AS l ON l.account_id = ? AND l.session_id = ?"
            + commit;
  }
}
