package io.leasehold.adapters.internal;

import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.MarkReset;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;

/**
 * The audit table of mark resets that the database writer ({@code <table>_audit}) and the
 * PostgreSQL tool journal ({@code <prefix>_mark_reset}) share in shape: {@code id} (a sequence, so
 * the table reads oldest first), {@code at}, {@code operator}, {@code account_id}, {@code
 * session_id}, {@code previous_mark}, {@code new_mark}, {@code reason}. Written and read by {@link
 * SqlMarkStore} for both; not an API.
 */
public final class MarkResetTable {
  /**
   * The record of one reset, written in the reset's own transaction and dated by the database's
   * clock ({@code statement_timestamp()}, the time of this insert's statement), like every other
   * time these guards keep: a stable function, which Citus evaluates once on the coordinator, where
   * a volatile one is refused in some statements on distributed tables (docs/scale-out.md).
   * Parameters: operator, account, session, previous mark, new mark, reason.
   */
  private final String insert;

  /** Every record, oldest first. */
  private final String readAll;

  /**
   * @param table the audit table's name, schema-qualified where the guard qualifies its names
   */
  public MarkResetTable(String table) {
    this.insert =
        "INSERT INTO "
            + table
            + " (at, operator, account_id, session_id, previous_mark, new_mark, reason)"
            + " VALUES (statement_timestamp(), ?, ?, ?, ?, ?, ?) RETURNING at";
    this.readAll =
        "SELECT account_id, session_id, previous_mark, new_mark, operator, reason, at FROM "
            + table
            + " ORDER BY id";
  }

  /**
   * Records a reset in the caller's transaction.
   *
   * @param c the reset's connection
   * @param key the key
   * @param previous the mark before
   * @param newMark the mark after
   * @param operator who
   * @param reason why
   * @return the recorded reset, dated by the database
   * @throws SQLException if the insert fails
   */
  public MarkReset record(
      Connection c, LeaseKey key, long previous, long newMark, String operator, String reason)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(insert)) {
      ps.setString(1, operator);
      ps.setString(2, key.accountId());
      ps.setString(3, key.sessionId());
      ps.setLong(4, previous);
      ps.setLong(5, newMark);
      ps.setString(6, reason);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return new MarkReset(
            key,
            previous,
            newMark,
            operator,
            reason,
            rs.getObject(1, OffsetDateTime.class).toInstant());
      }
    }
  }

  /**
   * Every recorded reset, oldest first.
   *
   * @param c a connection
   * @return the resets
   * @throws SQLException if the read fails
   */
  public List<MarkReset> readAll(Connection c) throws SQLException {
    List<MarkReset> out = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(readAll);
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        out.add(
            new MarkReset(
                LeaseKey.of(rs.getString(1), rs.getString(2)),
                rs.getLong(3),
                rs.getLong(4),
                rs.getString(5),
                rs.getString(6),
                rs.getObject(7, OffsetDateTime.class).toInstant()));
      }
    }
    return out;
  }
}
