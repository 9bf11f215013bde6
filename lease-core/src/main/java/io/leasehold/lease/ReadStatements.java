package io.leasehold.lease;

import io.leasehold.fencing.LeaseKey;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The store's reads, each statement with its binding and the reading of its row: a key's status,
 * the held leases, the health probe and the failover settings. None takes a row lock.
 *
 * <p>Thread-safe (it holds no mutable state).
 */
final class ReadStatements {
  // The columns status and held share, in this order; held adds the key after them.
  private static final String OWNER_COLUMNS =
      "statement_timestamp(), l.run_id, l.fence, l.holder, l.acquired_at, l.expires_at, l.released_at";
  private static final int NOW = 1;
  private static final OwnerColumns OWNER = new OwnerColumns(2, 3, 4, 5, 6, 7);
  private static final int ACCOUNT_ID = 8;
  private static final int SESSION_ID = 9;

  /**
   * Status: the key's row, if any, and the database clock, in one read. The LEFT JOIN returns the
   * clock even for a key never acquired. Parameters: account, session.
   */
  final String status;

  /**
   * A key's row alone, for an acquire of a key the store found taken before ({@link AcquireForms}):
   * {@link #status}'s columns without the join that returns the clock for a key with no row, which
   * this read does not need (no row: the full acquire is sent, and inserts the key). A primary-key
   * probe and one row out, no lock: the least a refusal that answers with the holder reads.
   * Parameters: account, session. No row: the key has none.
   */
  final String row;

  /**
   * The live leases, for an operator's listing ({@link LeaseAdmin#heldLeases}): rows neither
   * released nor expired by database time, soonest expiry first. A scan of the whole table (there
   * is no index on expiry, and the acquire path should not pay for one): an occasional query, not a
   * hot path. Columns as {@link #status}'s, then the key. Parameter: the most rows to return.
   */
  final String held;

  /**
   * A health probe: the database clock, read through the lease table so that a missing schema or
   * missing privileges show up (the subquery reads no row). No parameters.
   */
  final String probe;

  /**
   * What failover safety depends on ({@link LeaseAdmin#failoverSafety}): fsync, the session's
   * synchronous_commit, synchronous_standby_names, the standbys streaming from this server and how
   * many are synchronous (sync_state is hidden, so null, from a user without pg_monitor or
   * pg_read_all_stats: counted as -1), and whether this server is itself a standby. No parameters.
   */
  final String failoverSafety;

  private final StatementRunner runner;
  private final Duration takeoverDelay;

  /**
   * @param runner where the statements run; null when only their texts are wanted
   */
  ReadStatements(StatementRunner runner, StatementSettings settings, Duration takeoverDelay) {
    this.runner = runner;
    this.takeoverDelay = takeoverDelay;
    String t = settings.schema().table();
    String begin = settings.opening();
    status =
        begin
            + "SELECT "
            + OWNER_COLUMNS
            + " FROM (SELECT) AS now "
            + "LEFT JOIN "
            + t
            + " AS l ON l.account_id = ? AND l.session_id = ?";
    row =
        begin
            + "SELECT "
            + OWNER_COLUMNS
            + " FROM "
            + t
            + " AS l WHERE l.account_id = ? AND l.session_id = ?";
    held =
        begin
            + "SELECT "
            + OWNER_COLUMNS
            + ", l.account_id, l.session_id FROM "
            + t
            + " AS l"
            + " WHERE l.released_at IS NULL AND l.expires_at > statement_timestamp()"
            + " ORDER BY l.expires_at, l.account_id, l.session_id LIMIT ?";
    probe = begin + "SELECT statement_timestamp(), EXISTS (SELECT 1 FROM " + t + " WHERE false)";
    failoverSafety =
        begin
            + "SELECT current_setting('fsync') = 'on', current_setting('synchronous_commit'),"
            + " current_setting('synchronous_standby_names'),"
            + " (SELECT count(*) FROM pg_stat_replication),"
            + " CASE WHEN EXISTS (SELECT 1 FROM pg_stat_replication WHERE sync_state IS NULL) THEN -1"
            + " ELSE (SELECT count(*) FROM pg_stat_replication WHERE sync_state IN ('sync', 'quorum')) END,"
            + " pg_is_in_recovery()";
  }

  /** The key's status by the database clock. */
  LeaseStatus status(LeaseKey key) {
    return runner.execute(
        status,
        () -> "read status of " + key,
        ps -> StatementRunner.bindKey(ps, 1, key),
        (rs, opened) -> {
          rs.next();
          Instant now = StatementRunner.instant(rs, NOW);
          if (rs.getObject(OWNER.runId()) == null) {
            return new LeaseStatus(key, LeaseStatus.State.FREE, Optional.empty(), now, now);
          }
          return statusOf(key, OWNER.read(rs), now);
        });
  }

  /** The key's status by the database clock, from its row ({@link #row}); null if it has none. */
  LeaseStatus statusIfRow(LeaseKey key) {
    return runner.execute(
        row,
        () -> "read status of " + key,
        ps -> StatementRunner.bindKey(ps, 1, key),
        (rs, opened) ->
            rs.next() ? statusOf(key, OWNER.read(rs), StatementRunner.instant(rs, NOW)) : null);
  }

  /** At most {@code limit} live leases of the table, soonest expiry first. */
  List<LeaseStatus> held(int limit) {
    return runner.execute(
        held,
        () -> "list held leases",
        ps -> ps.setInt(1, limit),
        (rs, opened) -> {
          List<LeaseStatus> rows = new ArrayList<>();
          while (rs.next()) {
            LeaseKey key = LeaseKey.of(rs.getString(ACCOUNT_ID), rs.getString(SESSION_ID));
            rows.add(statusOf(key, OWNER.read(rs), StatementRunner.instant(rs, NOW)));
          }
          return rows;
        });
  }

  /** The database clock, read through the lease table. */
  Instant databaseTime() {
    return runner.readRow(
        probe, () -> "read the database time", rs -> StatementRunner.instant(rs, 1));
  }

  /** The database's durability and replication settings, judged. */
  FailoverSafety failoverSafety() {
    return runner.readRow(
        failoverSafety,
        () -> "read the failover settings",
        rs ->
            FailoverSafety.judge(
                rs.getBoolean(1),
                rs.getString(2),
                rs.getString(3),
                rs.getInt(4),
                rs.getInt(5),
                rs.getBoolean(6)));
  }

  /**
   * A key's state from its row and the database's now: free once released, held until expiry, then
   * draining until the takeover delay has passed. The acquire's refusal reads its holder's row
   * through this too.
   */
  LeaseStatus statusOf(LeaseKey key, LeaseOwner owner, Instant now) {
    if (owner.releasedAt() != null) {
      // A release that holds the key until an instant (releaseHolding) keeps its expiry there,
      // after the release: draining till then.
      if (owner.expiresAt().isAfter(owner.releasedAt()) && owner.expiresAt().isAfter(now)) {
        return new LeaseStatus(
            key, LeaseStatus.State.DRAINING, Optional.of(owner), now, owner.expiresAt());
      }
      return new LeaseStatus(
          key, LeaseStatus.State.FREE, Optional.of(owner), now, owner.releasedAt());
    }
    Instant acquirable = owner.expiresAt().plus(takeoverDelay);
    if (owner.expiresAt().isAfter(now)) {
      return new LeaseStatus(key, LeaseStatus.State.HELD, Optional.of(owner), now, acquirable);
    }
    LeaseStatus.State state =
        acquirable.isAfter(now) ? LeaseStatus.State.DRAINING : LeaseStatus.State.FREE;
    return new LeaseStatus(key, state, Optional.of(owner), now, acquirable);
  }
}
