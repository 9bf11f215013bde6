package io.leasehold.lease;

import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import java.sql.Types;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Optional;

/**
 * The releases, each statement with its binding and the reading of its row: a run's own release,
 * with or without a hold, and an operator's forced release. Each ends only a live lease and keeps
 * the row, marked, so the next acquire draws its fence after the row lock (see {@link
 * AcquireStatements#acquire}).
 *
 * <p>Thread-safe (it holds no mutable state).
 */
final class ReleaseStatements {
  /**
   * Release. Matches key, run id and fence, and only a live lease: a stale run's release can touch
   * neither a newer run's lease nor an expired row (which stays subject to the takeover delay).
   * Parameters: account, session, run id, fence. Returns the release time (and the setting's new
   * value) if the lease was released, no row otherwise.
   *
   * <p>Its commit does not wait for the WAL flush ({@code synchronous_commit} off for this
   * transaction alone, set in the update's {@code RETURNING} list, so only a release that changed
   * the row sets it). A release only ever shortens a lease, so losing one costs availability, never
   * safety: a server crash or failover in the few hundred milliseconds before the WAL writer
   * flushes it leaves the row held by a run that has stopped, until that lease's own expiry, as if
   * its process had died. No acquire can build on an unflushed release either: the acquire's own
   * commit waits for the flush of all WAL before it, the release included, so a fence granted after
   * a release is durable only together with that release. On a disk this takes one of the cycle's
   * two flushes away (docs/performance.md).
   */
  final String release;

  /** {@link #release} for a Citus coordinator; same parameters and columns. */
  final String releaseOnCitus;

  /**
   * Release holding the key until an instant (ShedLock's lockAtLeastFor, {@link
   * Lease#releaseHolding}): as {@link #release}, but the expiry is kept at that instant, so no
   * lease starts before it, and the next acquire draws a higher fence as always. The hold never
   * goes past the row's own expiry: the client checks it against the expiry it knows, but a renewal
   * that shortened the lease may have committed since (an outside check held a key an hour past a
   * lease renewed down to 5 s), so the row's expiry bounds it here, in the statement. Its commit
   * waits for the flush: losing it would end the hold at the lease's earlier expiry. Parameters:
   * the hold, account, session, run id, fence. Returns the release time if the lease was released,
   * no row otherwise.
   */
  final String releaseHolding;

  /**
   * Force release, audited in the same statement: ends whichever run holds a live lease on the key,
   * exactly as its own release would, and appends the audit record whether or not a lease was live.
   * The forced run learns at its next renewal, which now fails; resources still refuse it only once
   * a newer run has written, so the operator should also stop the forced run's process if it
   * misbehaves. Parameters: account, session, caller, account, session, reason. Returns the
   * released run's id and fence (nulls if no lease was live), the statement's time and the count of
   * audit rows written.
   */
  final String forceRelease;

  private static final int FORCED_RUN_ID = 1;
  private static final int FORCED_FENCE = 2;
  private static final int FORCED_AT = 3;

  private final StatementRunner runner;
  private final ReadStatements reads;

  /** Whether statements go without an opening, whose time a release that changed nothing reads. */
  private final boolean noOpening;

  /**
   * @param runner where the statements run; null when only their texts are wanted
   * @param reads the clock for a release that changed nothing, sent without an opening
   */
  ReleaseStatements(StatementRunner runner, StatementSettings settings, ReadStatements reads) {
    this.runner = runner;
    this.reads = reads;
    this.noOpening = settings.dedicatedPool();
    String t = settings.schema().table();
    String begin = settings.opening();
    String releasable =
        "WHERE l.account_id = ? AND l.session_id = ? AND l.run_id = ? AND l.fence = ?"
            + " AND l.released_at IS NULL AND l.expires_at > statement_timestamp() ";
    // The setting is made only for a row the update changed. One PostgreSQL makes it in the
    // RETURNING list; Citus refuses a volatile function there, so on Citus the SELECT over the
    // update's rows makes it (and turns off the coordinator's wait alone, docs/scale-out.md).
    String update =
        "UPDATE "
            + t
            + " AS l SET released_at = statement_timestamp(), expires_at = statement_timestamp() "
            + releasable
            + "RETURNING l.released_at";
    String asynchronous = "set_config('synchronous_commit', 'off', true)";
    release = begin + update + ", " + asynchronous;
    releaseOnCitus =
        begin + "WITH r AS (" + update + ") SELECT released_at, " + asynchronous + " FROM r";
    // The hold (first parameter) keeps the key unavailable until that instant, in the same
    // statement: expires_at then lies ahead of released_at, and acquire treats the row as free
    // only once it has passed.
    releaseHolding =
        begin
            + "UPDATE "
            + t
            + " AS l SET released_at = statement_timestamp(),"
            + " expires_at = GREATEST(statement_timestamp(), LEAST(?::timestamptz, l.expires_at)) "
            + releasable
            + "RETURNING l.released_at";
    forceRelease =
        begin
            + "WITH released AS (UPDATE "
            + t
            + " AS l SET released_at = statement_timestamp(),"
            + " expires_at = statement_timestamp() "
            + "WHERE l.account_id = ? AND l.session_id = ?"
            + " AND l.released_at IS NULL AND l.expires_at > statement_timestamp() "
            + "RETURNING l.run_id, l.fence), "
            + "audit AS (INSERT INTO "
            + t
            + "_audit (at, operation, caller, account_id, session_id, reason, detail)"
            + " SELECT statement_timestamp(), 'force_release', ?, ?, ?, ?,"
            + " COALESCE((SELECT 'released run ' || run_id || ' with fence ' || fence FROM released),"
            + " 'no live lease') RETURNING 1) "
            + "SELECT (SELECT run_id FROM released), (SELECT fence FROM released), statement_timestamp(),"
            + " (SELECT count(*) FROM audit)";
  }

  /**
   * Releases the token's run if it still holds the key, the key unavailable until {@code holdUntil}
   * if one is given; NOT_HELD changes nothing.
   */
  ReleaseResult release(FencingToken token, Optional<Instant> holdUntil) {
    OffsetDateTime hold = holdUntil.map(h -> h.atOffset(ZoneOffset.UTC)).orElse(null);
    ReleaseResult result =
        runner.execute(
            hold == null ? release : releaseHolding,
            hold == null ? releaseOnCitus : releaseHolding,
            () -> "release " + token,
            ps -> {
              int i = 1;
              if (hold != null) {
                ps.setObject(i++, hold, Types.TIMESTAMP_WITH_TIMEZONE);
              }
              ps.setString(i++, token.key().accountId());
              ps.setString(i++, token.key().sessionId());
              ps.setObject(i++, token.runId());
              ps.setLong(i, token.fence());
            },
            (rs, opened) -> {
              if (rs.next()) {
                return new ReleaseResult(
                    ReleaseResult.Outcome.RELEASED, Optional.of(StatementRunner.instant(rs, 1)));
              }
              // A release that changed nothing answers with the opening's time; a statement sent
              // without one (session timeouts) reads the time below, off the common path.
              return noOpening
                  ? null
                  : new ReleaseResult(ReleaseResult.Outcome.NOT_HELD, Optional.of(opened.get()));
            });
    return result != null
        ? result
        : new ReleaseResult(ReleaseResult.Outcome.NOT_HELD, Optional.of(reads.databaseTime()));
  }

  /** What a forced release did, and the fence of the run it ended (0 if none). */
  record Forced(ReleaseResult result, long fence) {}

  /** Ends whichever run holds the key, and records it in the audit table in the same statement. */
  Forced forceRelease(LeaseKey key, String caller, String reason) {
    return runner.execute(
        forceRelease,
        () -> "force the release of " + key,
        ps -> {
          StatementRunner.bindKey(ps, 1, key);
          ps.setString(3, caller);
          StatementRunner.bindKey(ps, 4, key);
          ps.setString(6, reason);
        },
        (rs, opened) -> {
          rs.next();
          boolean released = rs.getObject(FORCED_RUN_ID) != null;
          return new Forced(
              new ReleaseResult(
                  released ? ReleaseResult.Outcome.RELEASED : ReleaseResult.Outcome.NOT_HELD,
                  Optional.of(StatementRunner.instant(rs, FORCED_AT))),
              rs.getLong(FORCED_FENCE));
        });
  }
}
