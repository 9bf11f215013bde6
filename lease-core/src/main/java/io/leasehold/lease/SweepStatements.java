package io.leasehold.lease;

import java.time.Duration;

/**
 * The sweep, each statement with its binding and the reading of its row: the deletion of the rows
 * of leases long ended, one batch per statement in key order, and its audit record.
 *
 * <p>Thread-safe (it holds no mutable state).
 */
final class SweepStatements {
  /** Rows walked per statement by {@link #sweep(Duration, String)}. */
  static final int BATCH = 10_000;

  /**
   * Sweep, one batch: walk the next rows in primary-key order after the given key, and delete those
   * that ended (released, or expired without release) before a cutoff, by database time. Released
   * rows carry their release time in {@code expires_at}, so one condition covers both. Walking the
   * key order makes a whole sweep one pass over the table's index, whatever its size; a scan for
   * dead rows would read the dead tuples of every earlier batch again.
   *
   * <p>Why deleting keeps fences increasing (CONTRACT C3): a swept key's next acquire inserts a new
   * row with a fence drawn from the same sequence, higher than every fence drawn before, including
   * the deleted row's. The one hazard is an acquire that drew its fence before the deletion and
   * inserts after it: every acquire statement is bounded by its store's statement timeout, and a
   * row dead for longer than any statement timeout (at most {@link LeaseStore#MAX_TTL}) was not
   * seen by an acquire still in flight. {@link LeaseAdmin#sweep} therefore requires the cutoff to
   * lie at least {@link LeaseStore#MAX_TTL} back, which also covers every takeover delay (a row
   * still within one must not be swept). The DELETE checks the cutoff again on the latest row
   * version, so a row that an acquire revived while the sweep waited for its lock is kept.
   *
   * <p>The deleted row's fence must also be at most the sequence's position read before the sweep
   * ({@link #position}): the acquire draws its value before it locks the row (in a CTE, which Citus
   * can run), and where that value lost to the row's own {@code fence + 1} the row is ahead of the
   * sequence. Deleted then, the key's next first acquire could draw a fence it already had. A row
   * the sequence has passed is deleted; one ahead of it waits for a later sweep, after other grants
   * moved the sequence on. The sequence never goes back (CACHE 1; a crash skips values forward), so
   * a position read before the batch bounds it for the whole sweep.
   *
   * <p>A deleted row takes its fence with it, and the key's next acquire relies on the sequence
   * alone, which an operator can set back ({@code setval}, {@code ALTER SEQUENCE ... RESTART}; an
   * outside check then had a swept key granted fence 3 after 2514). So the statement that deletes
   * also raises the fence floor ({@code <table>_fence_floor}, one row) to the highest fence it
   * deleted, committed with the deletion or not at all, and the first acquire of a key draws above
   * that floor ({@link AcquireStatements#acquireNew}). Concurrent sweeps raise it in turn: the
   * update waits for the other's row lock and checks its condition again on the committed floor.
   *
   * <p>Parameters: the last key of the previous batch (account, session; empty strings to start),
   * batch size, age (microseconds) twice, the sequence's position. Returns the rows deleted, the
   * rows walked, and the last key walked.
   */
  final String sweep;

  /**
   * The fence sequence's position: the last value it handed out (0 if none yet; {@code
   * pg_sequence_last_value} asks only for the USAGE a store already has). Its next value is higher.
   * No parameters.
   */
  final String position;

  /**
   * The audit record of a sweep, written after its last batch. Parameters: caller, reason, detail.
   * Returns the statement's time.
   */
  final String auditSweep;

  private final StatementRunner runner;
  private final FenceSource fenceSource;

  /**
   * @param runner where the statements run; null when only their texts are wanted
   * @param fenceSource checked before every sweep
   */
  SweepStatements(StatementRunner runner, StatementSettings settings, FenceSource fenceSource) {
    this.runner = runner;
    this.fenceSource = fenceSource;
    String t = settings.schema().table();
    String begin = settings.opening();
    sweep =
        begin
            + "WITH batch AS (SELECT account_id, session_id, expires_at FROM "
            + t
            + " WHERE (account_id, session_id) > (?, ?) ORDER BY account_id, session_id LIMIT ?), "
            + "gone AS (DELETE FROM "
            + t
            + " AS l USING batch"
            + " WHERE l.account_id = batch.account_id AND l.session_id = batch.session_id"
            + " AND batch.expires_at < statement_timestamp() - ? * interval '1 microsecond'"
            + " AND l.expires_at < statement_timestamp() - ? * interval '1 microsecond'"
            + " AND l.fence <= ? RETURNING l.fence), "
            + "raised AS (UPDATE "
            + t
            + "_fence_floor SET fence = (SELECT max(fence) FROM gone)"
            + " WHERE fence < (SELECT max(fence) FROM gone)), "
            + "last AS (SELECT account_id, session_id FROM batch"
            + " ORDER BY account_id DESC, session_id DESC LIMIT 1) "
            + "SELECT (SELECT count(*) FROM gone), (SELECT count(*) FROM batch), last.account_id, last.session_id"
            + " FROM (SELECT) AS one LEFT JOIN last ON true";
    position =
        begin
            + "SELECT COALESCE(pg_sequence_last_value('"
            + settings.schema().sequence()
            + "'), 0)";
    auditSweep =
        begin
            + "INSERT INTO "
            + t
            + "_audit (at, operation, caller, account_id, session_id, reason, detail)"
            + " VALUES (statement_timestamp(), 'sweep', ?, NULL, NULL, ?, ?) RETURNING at";
  }

  /**
   * Deletes rows of leases dead for at least {@code deadFor}, one batch per statement, then records
   * the sweep in the audit table; {@link LeaseAdmin#sweep} checks the bound on {@code deadFor}.
   *
   * @return the rows deleted
   */
  long sweep(Duration deadFor, String caller) {
    // The position bounds what may be deleted only if it is the position of the sequence every
    // grant draws from: a store on a Citus worker read its own copy's, 2^48 and up, and deleted a
    // row whose fence was ahead of the coordinator's sequence (FenceSource).
    fenceSource.check();
    long age = StatementRunner.micros(deadFor);
    long passed =
        runner.readRow(
            position, () -> "read the position of the fence sequence", rs -> rs.getLong(1));
    long total = 0;
    // Keys are at least one character long: every key sorts after ("", "").
    Batch batch = new Batch(0, BATCH, "", "");
    while (batch.walked() == BATCH) {
      Batch previous = batch;
      batch =
          runner.execute(
              sweep,
              () -> "sweep leases dead for " + deadFor,
              ps -> {
                ps.setString(1, previous.lastAccount());
                ps.setString(2, previous.lastSession());
                ps.setInt(3, BATCH);
                ps.setLong(4, age);
                ps.setLong(5, age);
                ps.setLong(6, passed);
              },
              (rs, opened) -> {
                rs.next();
                return new Batch(rs.getLong(1), rs.getLong(2), rs.getString(3), rs.getString(4));
              });
      total += batch.deleted();
    }
    long deleted = total;
    runner.execute(
        auditSweep,
        () -> "record the sweep in the audit table",
        ps -> {
          ps.setString(1, caller);
          ps.setString(2, "rows of leases dead for at least " + deadFor);
          ps.setString(3, "deleted " + deleted + " row(s)");
        },
        (rs, opened) -> rs.next());
    return total;
  }

  /**
   * One sweep statement's row: rows deleted, rows walked, and the last key walked (null if none).
   */
  private record Batch(long deleted, long walked, String lastAccount, String lastSession) {}
}
