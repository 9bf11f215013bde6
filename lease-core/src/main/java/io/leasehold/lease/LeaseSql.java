package io.leasehold.lease;

import io.leasehold.fencing.LeaseKey;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.UUID;

/**
 * Every statement the lease store sends, in one place, built once per store from validated
 * identifiers (never from request data: values always travel as bind parameters).
 *
 * <p>CONTRACT C5 wants {@code lock_timeout} and {@code statement_timeout} on every statement. Two
 * ways, chosen by {@link LeaseStoreBuilder#dedicatedPool}:
 *
 * <ul>
 *   <li>A pool shared with the application (the default): each statement is sent as one pipelined
 *       string {@code SELECT statement_timestamp(), set_config('lock_timeout', ..., true),
 *       set_config('statement_timeout', ..., true); <statement>} on an auto-commit connection.
 *       The driver sends both parts in one round trip with one Sync, and PostgreSQL runs
 *       everything up to a Sync as one implicit transaction: the timeouts ({@code set_config(...,
 *       true)} is {@code SET LOCAL}) hold for the statement and end with it, so they never reach
 *       the application's own queries on the same connection.
 *   <li>A pool that serves the store alone: {@link #sessionTimeouts} sets both once per
 *       connection, for the session, and the statements go without the opening. The benchmarks
 *       measured the opening at a third of a refusal's server time (docs/performance.md), partly
 *       because every commit resets {@code SET LOCAL} settings.
 * </ul>
 *
 * <p>Expiry is decided by the database clock (CONTRACT C2): {@code statement_timestamp()}, the
 * time PostgreSQL began the statement. It is one value for the whole statement, so every
 * comparison and every new timestamp in a statement agree without a CTE to hold the time, and it
 * is read before the statement waits for any row lock.
 *
 * <p>The statements are as small as the contract allows on purpose: the benchmarks measured a
 * CTE holding the time, a lookup subquery, check constraints and a row trigger each costing 10% to
 * 40% of the database's acquire + release throughput, and executor start-up of a four-part
 * acquire plan as much again (see docs/performance.md).
 */
final class LeaseSql {
  /**
   * Acquire (CONTRACT C1, C3, C18) of a key that has a row: every key after its first acquire,
   * since release marks the row and only {@link #sweep} deletes rows, long after they ended. One
   * statement, which either grants the key to this run or refuses and reports the holder's row,
   * and which draws a fence only when it grants.
   *
   * <p>{@code upd} is a plain single-table {@code UPDATE} of the key's row where it is free
   * (released, and past any hold; or expired past the takeover delay). A row that is not free in
   * the statement's snapshot fails the condition without being locked or written: a refusal is
   * two primary-key reads (the update's and the holder's row below), with no row lock, no write,
   * no WAL flush and no fence drawn. A row that looks free is locked; if a contender holds the
   * lock (it is taking the key over), the update waits for it, bounded by the lock timeout, and
   * then checks the condition again on the contender's committed version, which is held: refused.
   * The wait is one contender's commit; one that outlasts the lock timeout is answered Busy too
   * (LeaseGrants, C18). The {@code SET} list, {@code nextval} included, is computed on the version
   * it updates, which this statement holds locked: the fence comes from {@code nextval}
   * evaluated after every earlier holder of the row committed its own fence, so it is higher than
   * all of them (C3). {@code GREATEST(..., l.fence + 1)} keeps that true of the row whatever
   * happened to the sequence since the store checked it at start-up: an outside check restarted it
   * lower ({@code ALTER SEQUENCE ... RESTART}), raised its cache while stores ran, and bound
   * another sequence to the table, and each time a key's next fence came out lower than, or equal
   * to, one it had already had. A key with no row (its first acquire, or the first after a sweep)
   * still relies on the sequence alone.
   *
   * <p>The second part returns the row as the snapshot saw it when nothing was updated: the
   * holder. (A free-looking row there means a contender won the lock; LeaseGrants then reads the
   * key's status once more.) No row at all: the key has no row yet, and {@link #acquireNew} is
   * sent instead (the one case of a second round trip, once per key).
   *
   * <p>Expiry and takeover delay are decided by the statement's single database time. That time is
   * read when the statement starts, before its snapshot and its row lock, so a release can commit
   * with a later time than ours and still be seen: the new lease then starts at the release's
   * time ({@code GREATEST}), so that no lease ever starts before its predecessor ended (the torture
   * run's checker found the microseconds of overlap this prevents). {@code took_over} records
   * whether the run replaced an expired lease rather than a released one (live status tells
   * takeovers apart by it).
   *
   * <p>Parameters: see {@link #bindAcquire}. Returns one row: granted (true), then fence and start
   * (the expiry is the start plus the ttl, exactly); or not granted (false), then the holder's
   * fence, start, run id, holder, expiry and release time as the statement's snapshot saw them;
   * and the statement's time; for a publishing store, then whether the grant was a takeover. No
   * row: the key has no row.
   */
  final String acquire;

  /**
   * The first acquire of a key ({@link #acquire} found no row): insert it, the fence drawn in the
   * insert. Two first acquires of one key race on the primary key: the loser waits for the
   * winner's commit (bounded by the lock timeout), its insert does nothing (its drawn value stays
   * unused, the one case where a refusal uses up a sequence value) and it is refused. Parameters:
   * see {@link #bindAcquireNew}. Returns the fence and start if it inserted, no row otherwise.
   */
  final String acquireNew;

  /**
   * The session settings of a connection in a pool that serves the store alone, sent once per
   * connection ({@code set_config(..., false)} lasts for the session), or null when every
   * statement carries its own opening. No parameters.
   */
  final String sessionTimeouts;

  /**
   * Renew many leases in one statement (CONTRACT C4). A lease is extended only if the row still
   * names the same run and fence, was not released and has not expired by database time: a run
   * that expired cannot come back with a late heartbeat, even if nobody took over. The row locks
   * taken are only those of the matching leases. Parameters: arrays of account, session, run id,
   * fence, ttl (microseconds), all of equal length. Returns one row: the statement's time, and
   * the 1-based positions of the renewed leases (each now expires at that time plus its ttl).
   */
  final String renew;

  /**
   * Release (CONTRACT C4). Matches key, run id and fence, and only a live lease: a stale run's
   * release can touch neither a newer run's lease nor an expired row (which stays subject to the
   * takeover delay). The row is kept and marked, so the next acquire draws its fence after the row
   * lock (see {@link #acquire}). Parameters: account, session, run id, fence. Returns the release
   * time (and the setting's new value) if the lease was released, no row otherwise.
   *
   * <p>Its commit does not wait for the WAL flush ({@code synchronous_commit} off for this
   * transaction alone, set in the {@code RETURNING} list, so only a release that changed the row
   * sets it). A release only ever shortens a lease, so losing one costs availability, never
   * safety: a server crash or failover in the few hundred milliseconds before the WAL writer
   * flushes it leaves the row held by a run that has stopped, until that lease's own expiry, as if
   * its process had died. No acquire can build on an unflushed release either: the acquire's own
   * commit waits for the flush of all WAL before it, the release included, so a fence granted
   * after a release is durable only together with that release. On a disk this takes one of the
   * cycle's two flushes away (docs/performance.md).
   */
  final String release;

  /**
   * Release holding the key until an instant (ShedLock's lockAtLeastFor, {@link
   * Lease#releaseHolding}): as {@link #release}, but the expiry is kept at that instant, so no
   * lease starts before it, and the next acquire draws a higher fence as always. The hold never
   * goes past the row's own expiry: the client checks it against the expiry it knows, but a renewal
   * that shortened the lease may have committed since (an outside check held a key an hour past
   * a lease renewed down to 5 s), so the row's expiry bounds it here, in the statement. Its commit waits
   * for the flush: losing it would end the hold at the lease's earlier expiry. Parameters: the
   * hold, account, session, run id, fence. Returns the release time if the lease was released, no
   * row otherwise.
   */
  final String releaseHolding;

  /**
   * Status (CONTRACT C7): the key's row, if any, and the database clock, in one read. The LEFT
   * JOIN returns the clock even for a key never acquired. Parameters: account, session.
   */
  final String status;

  /**
   * The live leases, for an operator's listing ({@link LeaseAdmin#heldLeases}): rows neither
   * released nor expired by database time, soonest expiry first. A scan of the whole table (there
   * is no index on expiry, and the acquire path should not pay for one): an occasional query, not a
   * hot path. Columns as {@link #status}'s, then the key. Parameter: the most rows to return.
   */
  final String held;

  /**
   * The notifications of committed changes, for a store that publishes (null otherwise): one
   * {@code pg_notify} per element of the array parameter, in its order, in a transaction that
   * commits without waiting for its WAL flush. Payloads are built by {@link ChangePublisher}.
   */
  final String publish;

  /**
   * A health probe: the database clock, read through the lease table so that a missing schema or
   * missing privileges show up (the subquery reads no row). No parameters.
   */
  final String probe;

  /**
   * Where the table's fences come from ({@link FenceSource}): the sequence bound to the table's
   * {@code fence} column (schema-qualified, then its name alone; nulls if none), the store's own
   * sequence as the {@code search_path} resolves it (null if there is none), whether the two
   * are one, and the store's sequence's cache size (null if there is none). Fails with {@code 42P01} if the table is missing. Catalog reads only: no row of the
   * table is read or locked. No parameters.
   */
  final String fenceSource;

  /** The names every statement was built from. */
  final LeaseSchema schema;

  /**
   * What failover safety depends on ({@link LeaseAdmin#failoverSafety}): fsync, the session's
   * synchronous_commit, synchronous_standby_names, the standbys streaming from this server and
   * how many are synchronous (sync_state is hidden, so null, from a user without pg_monitor or
   * pg_read_all_stats: counted as -1), and whether this server is itself a standby.
   */
  final String failoverSafety;

  /**
   * Sweep, one batch: walk the next rows in primary-key order after the given key, and delete
   * those that ended (released, or expired without release) before a cutoff, by database time.
   * Released rows carry their release time in {@code expires_at}, so one condition covers both.
   * Walking the key order makes a whole sweep one pass over the table's index, whatever its
   * size; a scan for dead rows would read the dead tuples of every earlier batch again.
   *
   * <p>Why deleting keeps fences increasing (CONTRACT C3): a swept key's next acquire inserts a
   * new row with a fence drawn from the same sequence, higher than every fence drawn before,
   * including the deleted row's. The one hazard is an acquire that drew its fence before the
   * deletion and inserts after it: every acquire statement is bounded by its store's statement
   * timeout, and a row dead for longer than any statement timeout (at most {@link
   * LeaseStore#MAX_TTL}) was not seen by an acquire still in flight. The store therefore requires
   * the cutoff to lie at least {@link LeaseStore#MAX_TTL} back, which also covers every takeover
   * delay (a row still within one must not be swept). The DELETE checks the cutoff
   * again on the latest row version, so a row that an acquire revived while the sweep waited for
   * its lock is kept. Parameters: the last key of the previous batch (account, session; empty
   * strings to start), batch size, age (microseconds) twice. Returns the rows deleted, the rows
   * walked, and the last key walked.
   */
  final String sweep;

  /**
   * Force release (CONTRACT C17), audited in the same statement: ends whichever run holds a live
   * lease on the key, exactly as its own release would (the row is kept and marked, so fences stay
   * increasing), and appends the audit record whether or not a lease was live. The forced run
   * learns at its next renewal, which now fails; resources still refuse it only once a newer run
   * has written, so the operator should also stop the forced run's process if it misbehaves.
   * Parameters: account, session, caller, account, session, reason. Returns the released run's id
   * and fence (nulls if no lease was live) and the statement's time.
   */
  final String forceRelease;

  /**
   * The audit record of a sweep, written after its last batch. Parameters: caller, reason,
   * detail. Returns the statement's time.
   */
  final String auditSweep;

  /** Binds {@link #acquire}'s eight parameters: the new run's values, then the key twice. */
  static void bindAcquire(
      PreparedStatement ps, LeaseKey key, UUID runId, String holder, long ttlMicros, long takeoverDelayMicros)
      throws SQLException {
    ps.setObject(1, runId);
    ps.setString(2, holder);
    ps.setLong(3, ttlMicros);
    ps.setString(4, key.accountId());
    ps.setString(5, key.sessionId());
    ps.setLong(6, takeoverDelayMicros);
    ps.setString(7, key.accountId());
    ps.setString(8, key.sessionId());
  }

  /** Binds {@link #acquireNew}'s five parameters. */
  static void bindAcquireNew(PreparedStatement ps, LeaseKey key, UUID runId, String holder, long ttlMicros)
      throws SQLException {
    ps.setString(1, key.accountId());
    ps.setString(2, key.sessionId());
    ps.setObject(3, runId);
    ps.setString(4, holder);
    ps.setLong(5, ttlMicros);
  }

  /** The opening of every pipelined short transaction; timeouts in whole milliseconds. */
  static String begin(Duration lockTimeout, Duration statementTimeout) {
    return begin(lockTimeout, statementTimeout, "");
  }

  static String begin(Duration lockTimeout, Duration statementTimeout, String more) {
    // One statement for both timeouts: measurably cheaper than two SET commands.
    return "SELECT statement_timestamp(), set_config('lock_timeout', '"
        + lockTimeout.toMillis()
        + "', true), set_config('statement_timeout', '"
        + statementTimeout.toMillis()
        + "', true)"
        + more
        + "; ";
  }

  /** {@code statement} wrapped in a pipelined short transaction. */
  static String shortTransaction(Duration lockTimeout, Duration statementTimeout, String statement) {
    return begin(lockTimeout, statementTimeout) + statement;
  }

  /**
   * @param notify true when the store publishes its changes to live-status listeners ({@link
   *     ChangePublisher}): the acquire statement then also returns whether the grant took an
   *     expired lease over, and {@link #publish} is built. Nothing is notified from these
   *     statements themselves: a notifying transaction takes a lock for the whole server at
   *     commit and holds it through its WAL flush, which serialized every publishing store's
   *     acquires and releases (docs/performance.md).
   */
  LeaseSql(LeaseSchema schema, Duration lockTimeout, Duration statementTimeout, boolean notify) {
    this(schema, lockTimeout, statementTimeout, notify, false);
  }

  /**
   * @param sessionTimeouts true when the store's pool serves the store alone: the timeouts are
   *     set once per connection ({@link #sessionTimeouts}) and the statements have no opening
   */
  LeaseSql(LeaseSchema schema, Duration lockTimeout, Duration statementTimeout, boolean notify, boolean sessionTimeouts) {
    this.schema = schema;
    String t = schema.table();
    String seq = schema.sequence();
    String begin = sessionTimeouts ? "" : begin(lockTimeout, statementTimeout);
    this.sessionTimeouts =
        sessionTimeouts
            ? "SELECT set_config('lock_timeout', '" + lockTimeout.toMillis() + "', false), set_config('statement_timeout', '"
                + statementTimeout.toMillis() + "', false)"
            : null;

    // A publishing store says "taken_over" rather than "acquired" when the grant ended an
    // expired lease: the ninth column, false on a refusal.
    String tookOver = notify ? ", l.took_over" : "";
    String start = "GREATEST(statement_timestamp(), l.released_at)";
    // Released, and past any hold the release asked for (releaseHolding keeps expires_at ahead
    // of released_at until then; a plain release sets both to its time, which may lie a little
    // after a concurrent statement's own time), or expired past the takeover delay.
    String free = "((l.released_at IS NOT NULL AND (l.expires_at <= l.released_at OR l.expires_at <= statement_timestamp()))"
        + " OR l.expires_at + ? * interval '1 microsecond' <= statement_timestamp())";
    String granted = "true, fence, acquired_at, NULL::uuid, NULL::text, NULL::timestamptz, NULL::timestamptz";
    String grantedTail = notify ? ", took_over" : "";
    String refusedTail = notify ? ", false" : "";
    acquire =
        begin
            + "WITH upd AS (UPDATE " + t + " AS l SET run_id = ?, fence = GREATEST(nextval('" + seq + "'), l.fence + 1),"
            + " holder = ?,"
            + " acquired_at = " + start + ", renewed_at = " + start + ","
            + " expires_at = " + start + " + ? * interval '1 microsecond', released_at = NULL,"
            + " took_over = l.released_at IS NULL "
            + "WHERE l.account_id = ? AND l.session_id = ? AND " + free + " "
            + "RETURNING l.fence, l.acquired_at" + tookOver + ") "
            + "SELECT " + granted + ", statement_timestamp()" + grantedTail + " FROM upd "
            + "UNION ALL SELECT false, l.fence, l.acquired_at, l.run_id, l.holder, l.expires_at, l.released_at,"
            + " statement_timestamp()" + refusedTail + " FROM " + t + " AS l"
            + " WHERE l.account_id = ? AND l.session_id = ? AND NOT EXISTS (SELECT 1 FROM upd)";
    acquireNew =
        begin
            + "INSERT INTO " + t + " AS l (account_id, session_id, run_id, fence, holder,"
            + " acquired_at, renewed_at, expires_at, released_at, took_over) "
            + "VALUES (?, ?, ?, nextval('" + seq + "'), ?, statement_timestamp(), statement_timestamp(),"
            + " statement_timestamp() + ? * interval '1 microsecond', NULL, false) "
            + "ON CONFLICT (account_id, session_id) DO NOTHING "
            + "RETURNING l.fence, l.acquired_at";

    // The plan must fit the arrays' real length. Right after a burst of new leases the planner
    // underestimated the table and picked a nested loop over a sequential scan that took over
    // 5 s for 10,000 leases (the benchmark found it): without sequential scans it probes the
    // primary key, whatever the statistics say. And a generic plan, which a server-prepared
    // statement switches to after five executions, cannot see the arrays' length at all (it
    // guesses 100 rows): one made a 10,000-lease renewal hit its timeout after a benchmark had
    // bloated the table. Custom plans are planned with the arrays in hand (~7 ms per 10,000).
    renew =
        begin(
                lockTimeout,
                statementTimeout,
                ", set_config('enable_seqscan', 'off', true), set_config('plan_cache_mode', 'force_custom_plan', true)")
            + "WITH req AS (SELECT * FROM unnest(?::text[], ?::text[], ?::uuid[], ?::bigint[], ?::bigint[])"
            + " WITH ORDINALITY AS r(account_id, session_id, run_id, fence, ttl_us, i)), "
            + "upd AS (UPDATE " + t + " AS l SET"
            + " expires_at = statement_timestamp() + req.ttl_us * interval '1 microsecond',"
            + " renewed_at = statement_timestamp() "
            + "FROM req "
            + "WHERE l.account_id = req.account_id AND l.session_id = req.session_id"
            + " AND l.run_id = req.run_id AND l.fence = req.fence"
            + " AND l.released_at IS NULL AND l.expires_at > statement_timestamp() "
            + "RETURNING req.i) "
            // One row: the time, and the positions of the renewed leases in the arrays (a few
            // bytes each instead of a run id and a timestamp to send and parse).
            + "SELECT statement_timestamp(), ARRAY(SELECT i FROM upd)";

    String releasable =
        "WHERE l.account_id = ? AND l.session_id = ? AND l.run_id = ? AND l.fence = ?"
            + " AND l.released_at IS NULL AND l.expires_at > statement_timestamp() ";
    release =
        begin
            + "UPDATE " + t + " AS l SET released_at = statement_timestamp(), expires_at = statement_timestamp() "
            + releasable
            + "RETURNING l.released_at, set_config('synchronous_commit', 'off', true)";
    // The hold (first parameter) keeps the key unavailable until that instant, in the same
    // statement: expires_at then lies ahead of released_at, and acquire treats the row as free
    // only once it has passed.
    releaseHolding =
        begin
            + "UPDATE " + t + " AS l SET released_at = statement_timestamp(),"
            + " expires_at = GREATEST(statement_timestamp(), LEAST(?::timestamptz, l.expires_at)) "
            + releasable
            + "RETURNING l.released_at";

    sweep =
        begin
            + "WITH batch AS (SELECT account_id, session_id, expires_at FROM " + t
            + " WHERE (account_id, session_id) > (?, ?) ORDER BY account_id, session_id LIMIT ?), "
            + "gone AS (DELETE FROM " + t + " AS l USING batch"
            + " WHERE l.account_id = batch.account_id AND l.session_id = batch.session_id"
            + " AND batch.expires_at < statement_timestamp() - ? * interval '1 microsecond'"
            + " AND l.expires_at < statement_timestamp() - ? * interval '1 microsecond' RETURNING 1), "
            + "last AS (SELECT account_id, session_id FROM batch"
            + " ORDER BY account_id DESC, session_id DESC LIMIT 1) "
            + "SELECT (SELECT count(*) FROM gone), (SELECT count(*) FROM batch), last.account_id, last.session_id"
            + " FROM (SELECT) AS one LEFT JOIN last ON true";

    forceRelease =
        begin
            + "WITH released AS (UPDATE " + t + " AS l SET released_at = statement_timestamp(),"
            + " expires_at = statement_timestamp() "
            + "WHERE l.account_id = ? AND l.session_id = ?"
            + " AND l.released_at IS NULL AND l.expires_at > statement_timestamp() "
            + "RETURNING l.run_id, l.fence), "
            + "audit AS (INSERT INTO " + t + "_audit (at, operation, caller, account_id, session_id, reason, detail)"
            + " SELECT statement_timestamp(), 'force_release', ?, ?, ?, ?,"
            + " COALESCE((SELECT 'released run ' || run_id || ' with fence ' || fence FROM released),"
            + " 'no live lease') RETURNING 1) "
            + "SELECT (SELECT run_id FROM released), (SELECT fence FROM released), statement_timestamp(),"
            + " (SELECT count(*) FROM audit)";

    auditSweep =
        begin
            + "INSERT INTO " + t + "_audit (at, operation, caller, account_id, session_id, reason, detail)"
            + " VALUES (statement_timestamp(), 'sweep', ?, NULL, NULL, ?, ?) RETURNING at";

    status =
        begin
            + "SELECT statement_timestamp(), l.run_id, l.fence, l.holder, l.acquired_at, l.expires_at,"
            + " l.released_at FROM (SELECT) AS now "
            + "LEFT JOIN " + t + " AS l ON l.account_id = ? AND l.session_id = ?";

    held =
        begin
            + "SELECT statement_timestamp(), l.run_id, l.fence, l.holder, l.acquired_at, l.expires_at,"
            + " l.released_at, l.account_id, l.session_id FROM " + t + " AS l"
            + " WHERE l.released_at IS NULL AND l.expires_at > statement_timestamp()"
            + " ORDER BY l.expires_at, l.account_id, l.session_id LIMIT ?";

    probe = begin + "SELECT statement_timestamp(), EXISTS (SELECT 1 FROM " + t + " WHERE false)";

    String bound = "to_regclass(pg_get_serial_sequence('" + t + "', 'fence'))";
    fenceSource =
        begin
            + "SELECT pg_get_serial_sequence('" + t + "', 'fence'),"
            + " (SELECT relname FROM pg_class WHERE oid = " + bound + "),"
            + " (SELECT quote_ident(n.nspname) || '.' || quote_ident(c.relname) FROM pg_class c"
            + " JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.oid = to_regclass('" + seq + "')),"
            + " COALESCE(" + bound + " = to_regclass('" + seq + "'), false),"
            + " (SELECT seqcache FROM pg_sequence WHERE seqrelid = to_regclass('" + seq + "'))";

    // A transaction of its own, after the change committed. Its commit need not wait for a WAL
    // flush: a notification is not durable anyway (a server crash drops the listeners, and they
    // resync), and not waiting keeps the server-wide notify lock, taken at commit, held for
    // microseconds instead of a flush.
    publish =
        notify
            ? begin
                + "SELECT set_config('synchronous_commit', 'off', true), pg_notify('" + t + "', p)"
                + " FROM unnest(?::text[]) AS p"
            : null;

    failoverSafety =
        begin
            + "SELECT current_setting('fsync') = 'on', current_setting('synchronous_commit'),"
            + " current_setting('synchronous_standby_names'),"
            + " (SELECT count(*) FROM pg_stat_replication),"
            + " CASE WHEN EXISTS (SELECT 1 FROM pg_stat_replication WHERE sync_state IS NULL) THEN -1"
            + " ELSE (SELECT count(*) FROM pg_stat_replication WHERE sync_state IN ('sync', 'quorum')) END,"
            + " pg_is_in_recovery()";
  }

}
