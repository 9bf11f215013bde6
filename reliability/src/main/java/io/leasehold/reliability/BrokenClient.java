package io.leasehold.reliability;

import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.LeaseLostException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * A deliberately broken lease store on the same table, to prove the checker can fail: its release
 * deletes by key only, not by run, so a stale run's late clean-up removes the next run's lease.
 * (Otherwise it behaves: conditional UPSERT by database time, renew by run.) Never use it.
 */
final class BrokenClient implements LeaseClient {
  private final DataSource ds;
  private final Duration ttl;

  BrokenClient(DataSource ds, Duration ttl) {
    this.ds = ds;
    this.ttl = ttl;
  }

  @Override
  public Held acquire(LeaseKey key) {
    UUID run = UUID.randomUUID();
    long sent = System.nanoTime();
    String sql =
        "INSERT INTO leasehold_lease AS l (account_id, session_id, run_id, fence, holder, acquired_at,"
            + " renewed_at, expires_at) VALUES (?, ?, ?, nextval('leasehold_fence_seq'), 'broken',"
            + " clock_timestamp(), clock_timestamp(), clock_timestamp() + ? * interval '1 ms')"
            + " ON CONFLICT (account_id, session_id) DO UPDATE SET run_id = EXCLUDED.run_id,"
            + " fence = EXCLUDED.fence, acquired_at = EXCLUDED.acquired_at, renewed_at = EXCLUDED.renewed_at,"
            + " expires_at = EXCLUDED.expires_at, released_at = NULL"
            + " WHERE l.released_at IS NOT NULL OR l.expires_at <= clock_timestamp()"
            + " RETURNING l.fence, l.acquired_at, l.expires_at";
    return query(
        sql,
        rs ->
            rs.next()
                ? new BrokenHeld(
                    new Grant(
                        new FencingToken(key, rs.getLong(1), run), instant(rs, 2), instant(rs, 3)),
                    sent + ttl.toNanos() * 9 / 10)
                : null,
        key.accountId(),
        key.sessionId(),
        run,
        ttl.toMillis());
  }

  @FunctionalInterface
  private interface Rows<T> {
    T read(ResultSet rs) throws SQLException;
  }

  /** One statement on a connection of its own, its parameters in order. */
  private <T> T query(String sql, Rows<T> rows, Object... parameters) {
    try (Connection c = ds.getConnection();
        PreparedStatement ps = c.prepareStatement(sql)) {
      for (int i = 0; i < parameters.length; i++) {
        ps.setObject(i + 1, parameters[i]);
      }
      try (ResultSet rs = ps.executeQuery()) {
        return rows.read(rs);
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public void close() {}

  private static Instant instant(ResultSet rs, int i) throws SQLException {
    return rs.getObject(i, OffsetDateTime.class).toInstant();
  }

  private final class BrokenHeld implements Held {
    private final FencingToken token;
    private final Instant acquiredAt;
    private volatile Instant expiresAt;
    private volatile long deadline;
    private volatile boolean lost;

    BrokenHeld(Grant granted, long deadline) {
      this.token = granted.identity();
      this.acquiredAt = granted.acquiredAt();
      this.expiresAt = granted.expiresAt();
      this.deadline = deadline;
    }

    @Override
    public FencingToken token() {
      if (isLost()) {
        throw new LeaseLostException(token, "lost");
      }
      return token;
    }

    @Override
    public Grant grant() {
      return new Grant(token, acquiredAt, expiresAt);
    }

    @Override
    public Answer renew() {
      long sent = System.nanoTime();
      String sql =
          "WITH now AS (SELECT clock_timestamp() AS t), upd AS (UPDATE leasehold_lease SET"
              + " expires_at = (SELECT t FROM now) + ? * interval '1 ms' WHERE account_id = ? AND session_id = ?"
              + " AND run_id = ? AND expires_at > (SELECT t FROM now) RETURNING expires_at)"
              + " SELECT now.t, upd.expires_at FROM now LEFT JOIN upd ON true";
      try {
        return query(
            sql,
            rs -> {
              rs.next();
              Instant now = instant(rs, 1);
              if (rs.getObject(2) == null) {
                lost = true;
                return new Answer(false, null, now);
              }
              expiresAt = instant(rs, 2);
              deadline = sent + ttl.toNanos() * 9 / 10;
              return new Answer(true, expiresAt, now);
            },
            ttl.toMillis(),
            token.key().accountId(),
            token.key().sessionId(),
            token.runId());
      } catch (IllegalStateException e) {
        lost = true;
        throw e;
      }
    }

    @Override
    public Answer release() {
      lost = true;
      // THE BUG: by key only. A stale run's release deletes whoever holds the key now.
      String sql =
          "WITH now AS (SELECT clock_timestamp() AS t), del AS (DELETE FROM leasehold_lease"
              + " WHERE account_id = ? AND session_id = ? RETURNING 1)"
              + " SELECT now.t, EXISTS (SELECT 1 FROM del) FROM now";
      return query(
          sql,
          rs -> {
            rs.next();
            return new Answer(rs.getBoolean(2), null, instant(rs, 1));
          },
          token.key().accountId(),
          token.key().sessionId());
    }

    @Override
    public boolean isLost() {
      return lost || System.nanoTime() - deadline >= 0;
    }
  }
}
