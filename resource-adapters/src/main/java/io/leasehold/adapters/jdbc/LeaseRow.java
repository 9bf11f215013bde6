package io.leasehold.adapters.jdbc;

import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.TokenVerificationException;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.Optional;
import java.util.UUID;

/**
 * A key's row of the lease table as online verification reads it, and the verdict on a token
 * (CONTRACT C15): a token is admitted only while its run <em>holds</em> the lease, that is the row
 * names the token's fence and run, the run has not released it, and it has not expired by the
 * database's clock. The lease store keeps a key's row on release and marks it ({@code released_at},
 * with {@code expires_at} set to the release time or to the hold of a release that holds the key),
 * and a new run's acquire overwrites fence and run id: so one row tells every case apart. Shared by
 * {@link LeaseTableVerifier} and the database writer's in-statement check, so both refuse the same
 * tokens with the same words.
 *
 * @param fence the key's current fence
 * @param runId the run that fence was issued to
 * @param releasedAt when that run released the lease, if it did
 * @param expiresAt when the lease expires (or expired), by the database's clock
 * @param now the database's clock (the coordinator's on Citus) after the row was read
 */
record LeaseRow(
    long fence, UUID runId, Optional<Instant> releasedAt, Instant expiresAt, Instant now) {
  /**
   * The columns {@link #query} expects, from the lease table aliased {@code l}. Not the clock: on
   * Citus a statement on the lease table runs on the worker that holds the key's shard, with that
   * worker's clock, and every expiry decision is the coordinator's (CONTRACT C2, red team 48 P22).
   */
  static final String COLUMNS = "l.fence, l.run_id, l.released_at, l.expires_at";

  /**
   * Follows a statement on the lease table in the same round trip: the database's clock, read by a
   * statement with no distributed table, which Citus runs on the coordinator (on plain PostgreSQL
   * the same server). It runs after the statement before it, so after any row lock that statement
   * waited for: a lease that ends meanwhile is not taken for live (C2: one database reading,
   * compared with database timestamps only).
   */
  static final String THEN_CLOCK = "; SELECT pg_catalog.clock_timestamp()";

  /**
   * The same verdict as {@link #refusal} for a row that exists, as a SQL condition on the lease
   * table aliased {@code l}: true only while the run holds the lease. Parameters: fence, run id. It
   * reads the clock of the node that runs it: on Citus the worker's, so the writer checks the
   * expiry again by the coordinator's clock before the commit ({@link HighWaterSql#checkLease}).
   */
  static final String HELD_BY_TOKEN =
      "l.fence = ? AND l.run_id = ? AND l.released_at IS NULL AND l.expires_at > clock_timestamp()";

  /**
   * Runs a statement of {@link #COLUMNS} followed by {@link #THEN_CLOCK}, after {@code skip}
   * results of statements ahead of it, and reads the key's row (if any) with that clock.
   */
  static Optional<LeaseRow> query(PreparedStatement ps, int skip) throws SQLException {
    ps.execute();
    for (int i = 0; i < skip; i++) {
      ps.getMoreResults();
    }
    Optional<LeaseRow> row;
    try (ResultSet rs = ps.getResultSet()) {
      row = rs.next() ? Optional.of(read(rs, null)) : Optional.empty();
    }
    Instant now = clock(ps);
    return row.map(r -> new LeaseRow(r.fence, r.runId, r.releasedAt, r.expiresAt, now));
  }

  /** The clock of {@link #THEN_CLOCK}, the statement's next result. */
  static Instant clock(PreparedStatement ps) throws SQLException {
    if (!ps.getMoreResults()) {
      throw new SQLException("expected the database's clock after the lease row");
    }
    try (ResultSet rs = ps.getResultSet()) {
      rs.next();
      return rs.getObject(1, OffsetDateTime.class).toInstant();
    }
  }

  private static LeaseRow read(ResultSet rs, Instant now) throws SQLException {
    OffsetDateTime released = rs.getObject(3, OffsetDateTime.class);
    return new LeaseRow(
        rs.getLong(1),
        rs.getObject(2, UUID.class),
        Optional.ofNullable(released).map(OffsetDateTime::toInstant),
        rs.getObject(4, OffsetDateTime.class).toInstant(),
        now);
  }

  /**
   * Why the token's run does not hold the lease, or empty if it does.
   *
   * @param table the lease table, for the message
   * @param token the token presented
   * @param row the key's row, or empty if the table has none
   * @return the refusal to throw, or empty to admit
   */
  static Optional<TokenVerificationException> refusal(
      String table, FencingToken token, Optional<LeaseRow> row) {
    if (row.isEmpty()) {
      return Optional.of(
          notIssued(
              table,
              token,
              "has no lease row for the key: it was never acquired through this table (a forged token, or a"
                  + " verifier pointed at another lease table than the store's), or its row was swept long after"
                  + " its last run ended"));
    }
    LeaseRow r = row.get();
    if (token.fence() > r.fence) {
      return Optional.of(
          notIssued(
              table,
              token,
              "has issued fences only up to "
                  + r.fence
                  + " for the key (a forged or damaged token)"));
    }
    if (token.fence() == r.fence && !token.runId().equals(r.runId)) {
      return Optional.of(
          notIssued(
              table,
              token,
              "issued fence " + r.fence + " to another run (a forged or damaged token)"));
    }
    if (token.fence() < r.fence) {
      return Optional.of(
          ended(
              table,
              token,
              "its run no longer holds the lease: a newer run acquired the key with fence "
                  + r.fence));
    }
    if (r.releasedAt.isPresent()) {
      return Optional.of(
          ended(
              table,
              token,
              "its run released the lease at " + r.releasedAt.get() + " (database time)"));
    }
    if (!r.expiresAt.isAfter(r.now)) {
      return Optional.of(
          ended(
              table,
              token,
              "its run's lease expired at "
                  + r.expiresAt
                  + " (database time, now "
                  + r.now
                  + ") without being renewed"));
    }
    return Optional.empty();
  }

  private static TokenVerificationException notIssued(
      String table, FencingToken token, String why) {
    return new TokenVerificationException(
        TokenVerificationException.Reason.NOT_ISSUED,
        "refused " + token + ": " + table + " " + why + "; nothing changed");
  }

  /** A genuine token whose run ended: EXPIRED, as a signed token past its window is. */
  private static TokenVerificationException ended(String table, FencingToken token, String why) {
    return new TokenVerificationException(
        TokenVerificationException.Reason.EXPIRED,
        "refused "
            + token
            + ": by "
            + table
            + ", "
            + why
            + ". A run may write only while it holds its"
            + " lease: stop this run's work, and acquire the key again for a new run (with a new token)"
            + " if the work must go on; nothing changed");
  }
}
