package io.leasehold.lease;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.UUID;

/**
 * The renewal of many leases in one statement, with its binding and the reading of its row. A lease
 * is extended only if the row still names the same run and fence, was not released and has not
 * expired by database time (CONTRACT C4): a run that expired cannot come back with a late
 * heartbeat, even if nobody took over. The row locks taken are only those of the matching leases.
 *
 * <p>Thread-safe (it holds no mutable state).
 */
final class RenewStatement {
  /**
   * Parameters: arrays of account, session, run id, fence, ttl (microseconds), all of equal length.
   * Returns one row: the statement's time, and the 1-based positions of the renewed leases (each
   * now expires at that time plus its ttl).
   *
   * <p>The plan must fit the arrays' real length. Right after a burst of new leases the planner
   * underestimated the table and picked a nested loop over a sequential scan that took over 5 s for
   * 10,000 leases (the benchmark found it): without sequential scans it probes the primary key,
   * whatever the statistics say. And a generic plan, which a server-prepared statement switches to
   * after five executions, cannot see the arrays' length at all (it guesses 100 rows): one made a
   * 10,000-lease renewal hit its timeout after a benchmark had bloated the table. Custom plans are
   * planned with the arrays in hand (~7 ms per 10,000). Both settings go in an opening of the
   * statement's own, so it has one even on a dedicated pool.
   *
   * <p>On a Citus coordinator the statement spans shards, and Citus lets one such modification at a
   * time touch a shard unless {@code citus.enable_deadlock_prevention} is off: the store's second
   * chunk, or another process's renewal, waited for the first and ended at the lock timeout ({@code
   * 55P03}), losing every lease it named (the benchmark found it, renewing a million leases over
   * both workers). The opening turns it off for this statement (a placeholder setting on plain
   * PostgreSQL). What the prevention guards against, two statements locking the same rows on
   * different shards in opposite orders, cannot happen between renewals: each locks only the rows
   * of its own runs (the join names run id and fence), and a run's lease is renewed by its own
   * store.
   */
  final String renew;

  private final StatementRunner runner;

  /**
   * @param runner where the statement runs; null when only its text is wanted
   */
  RenewStatement(StatementRunner runner, StatementSettings settings) {
    this.runner = runner;
    String t = settings.schema().table();
    renew =
        StatementSettings.begin(
                settings.lockTimeout(),
                settings.statementTimeout(),
                ", set_config('enable_seqscan', 'off', true), set_config('plan_cache_mode', 'force_custom_plan', true),"
                    + " set_config('citus.enable_deadlock_prevention', 'off', true)")
            + "WITH req AS (SELECT * FROM unnest(?::text[], ?::text[], ?::uuid[], ?::bigint[], ?::bigint[])"
            + " WITH ORDINALITY AS r(account_id, session_id, run_id, fence, ttl_us, i)), "
            + "upd AS (UPDATE "
            + t
            + " AS l SET"
            + " expires_at = "
            + SqlTime.plusMicros("statement_timestamp()", "req.ttl_us")
            + ","
            + " renewed_at = statement_timestamp() "
            + "FROM req "
            + "WHERE l.account_id = req.account_id AND l.session_id = req.session_id"
            + " AND l.run_id = req.run_id AND l.fence = req.fence"
            + " AND l.released_at IS NULL AND l.expires_at > statement_timestamp() "
            + "RETURNING req.i) "
            // One row: the time, and the positions of the renewed leases in the arrays (a few
            // bytes each instead of a run id and a timestamp to send and parse).
            + "SELECT statement_timestamp(), ARRAY(SELECT i FROM upd)";
  }

  /**
   * What one statement renewed.
   *
   * @param expiries each lease's new expiry, by position (null: not renewed)
   * @param ttlMicros the lease length each lease was renewed for, by position, as sent
   */
  record Renewals(Instant[] expiries, Instant databaseNow, long[] ttlMicros) {}

  /**
   * Renews the leases in one statement; changes nothing in the handles.
   *
   * @throws LeaseStoreException if the statement fails
   */
  Renewals renew(List<Lease> leases) {
    int n = leases.size();
    String[] accounts = new String[n];
    String[] sessions = new String[n];
    UUID[] runs = new UUID[n];
    Long[] fences = new Long[n];
    Long[] ttls = new Long[n];
    long[] ttlMicros = new long[n];
    for (int i = 0; i < n; i++) {
      Lease l = leases.get(i);
      accounts[i] = l.key().accountId();
      sessions[i] = l.key().sessionId();
      runs[i] = l.runId();
      fences[i] = l.fence();
      ttlMicros[i] = StatementRunner.micros(l.ttl());
      ttls[i] = ttlMicros[i];
    }
    return runner.execute(
        renew,
        () -> "renew " + n + " lease(s)",
        (ps, c) -> {
          ps.setArray(1, StatementRunner.array(c, "text", accounts));
          ps.setArray(2, StatementRunner.array(c, "text", sessions));
          ps.setArray(3, StatementRunner.array(c, "uuid", runs));
          ps.setArray(4, StatementRunner.array(c, "bigint", fences));
          ps.setArray(5, StatementRunner.array(c, "bigint", ttls));
        },
        (rs, opened) -> {
          rs.next();
          Instant now = StatementRunner.instant(rs, 1);
          // The statement set each renewed lease's expiry to its time plus the lease's ttl.
          Instant[] expiries = new Instant[n];
          for (Object position : (Object[]) rs.getArray(2).getArray()) {
            int i = ((Number) position).intValue() - 1;
            expiries[i] = now.plus(ttlMicros[i], ChronoUnit.MICROS);
          }
          return new Renewals(expiries, now, ttlMicros);
        });
  }
}
