package io.leasehold.adapters.internal;

import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.MarkReset;
import io.leasehold.fencing.mark.MarkStoreException;
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
   * How many ids a reset draws from the sequence before it gives up: each one taken by a row
   * inserted by hand costs one more draw.
   */
  static final int MAX_ID_DRAWS = 100;

  private final String table;

  /**
   * The record of one reset, written in the reset's own transaction and dated by the database's
   * clock ({@code statement_timestamp()}, the time of this insert's statement), like every other
   * time these guards keep: a stable function, which Citus evaluates once on the coordinator, where
   * a volatile one is refused in some statements on distributed tables (docs/scale-out.md). The
   * table is a reference table there, and its id's default draws from the coordinator's sequence.
   *
   * <p>Red team 47: a row inserted by hand with an id the sequence had not handed out yet made the
   * next reset fail on the primary key (23505), which aborts the operator's transaction. {@code ON
   * CONFLICT (id) DO NOTHING} returns no row instead, and the reset draws the next id: each draw
   * advances the sequence past one such row. Parameters: operator, account, session, previous mark,
   * new mark, reason.
   */
  private final String insert;

  /** Every record, oldest first. */
  private final String readAll;

  /**
   * @param table the audit table's name, schema-qualified where the guard qualifies its names
   */
  public MarkResetTable(String table) {
    this.table = table;
    this.insert =
        "INSERT INTO "
            + table
            + " (at, operator, account_id, session_id, previous_mark, new_mark, reason)"
            + " VALUES (statement_timestamp(), ?, ?, ?, ?, ?, ?)"
            + " ON CONFLICT (id) DO NOTHING RETURNING at";
    this.readAll =
        "SELECT id, account_id, session_id, previous_mark, new_mark, operator, reason, at FROM "
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
   * @throws MarkStoreException if {@value #MAX_ID_DRAWS} ids in a row are taken by rows inserted by
   *     hand; the message says how to move the sequence past them
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
      for (int draw = 0; draw < MAX_ID_DRAWS; draw++) {
        try (ResultSet rs = ps.executeQuery()) {
          if (rs.next()) {
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
    }
    throw new MarkStoreException(
        "could not record the reset of "
            + key
            + " in "
            + table
            + ": the next "
            + MAX_ID_DRAWS
            + " ids of its sequence are taken by rows inserted by hand, and the mark was not"
            + " changed. Move the sequence past them (SELECT setval(pg_get_serial_sequence('"
            + table
            + "', 'id'), (SELECT max(id) FROM "
            + table
            + "))), then reset again",
        null);
  }

  /**
   * Every recorded reset, oldest first.
   *
   * @param c a connection
   * @return the resets
   * @throws SQLException if the read fails
   * @throws MarkStoreException naming the first row that is not a reset (edited by hand) and its
   *     repair
   */
  public List<MarkReset> readAll(Connection c) throws SQLException {
    List<MarkReset> out = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(readAll);
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        out.add(row(rs));
      }
    }
    return out;
  }

  /**
   * One row as a reset. Red team 47: a row edited by hand (a negative mark, a blank operator or
   * key, a time out of range) threw the bare IllegalArgumentException of {@link MarkReset}, naming
   * no row. The audit is a record that admissions never read, so the repair is the row's own.
   */
  private MarkReset row(ResultSet rs) throws SQLException {
    long id = rs.getLong(1);
    try {
      return new MarkReset(
          LeaseKey.of(rs.getString(2), rs.getString(3)),
          rs.getLong(4),
          rs.getLong(5),
          rs.getString(6),
          rs.getString(7),
          rs.getObject(8, OffsetDateTime.class).toInstant());
    } catch (RuntimeException damaged) {
      throw new MarkStoreException(
          "row id "
              + id
              + " of "
              + table
              + " is not a mark reset ("
              + damaged.getMessage()
              + "): it was written or edited outside Leasehold. Admissions do not read this audit"
              + " and go on; to read it again, correct the row or remove it (DELETE FROM "
              + table
              + " WHERE id = "
              + id
              + ") and keep what it said elsewhere",
          damaged);
    }
  }
}
