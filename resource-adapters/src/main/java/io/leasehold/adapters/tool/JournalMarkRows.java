package io.leasehold.adapters.tool;

import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * The PostgreSQL journal's mark rows: reading, locking, raising, and the check that a mark was
 * not deleted, lowered or made negative outside the journal. Every statement runs in the
 * caller's transaction.
 */
final class JournalMarkRows {
  private final String mark;
  private final String call;

  /**
   * @param mark the mark table
   * @param call the call table
   */
  JournalMarkRows(String mark, String call) {
    this.mark = mark;
    this.call = call;
  }

  long markOf(Connection c, LeaseKey key) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement("SELECT fence FROM " + mark + " WHERE account_id = ? AND session_id = ?")) {
      ps.setString(1, key.accountId());
      ps.setString(2, key.sessionId());
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? rs.getLong(1) : 0;
      }
    }
  }

  void raise(Connection c, FencingToken token) throws SQLException {
    // The caller holds the mark row's lock, so the raise cannot interleave with an admission.
    try (PreparedStatement ps =
        c.prepareStatement("UPDATE " + mark + " SET fence = ? WHERE account_id = ? AND session_id = ?")) {
      ps.setLong(1, token.fence());
      ps.setString(2, token.key().accountId());
      ps.setString(3, token.key().sessionId());
      ps.executeUpdate();
    }
  }

  /**
   * Locks the key's mark row (creating it at 0) and returns the mark, after checking it against
   * the calls (CONTRACT C16, issue 27): a mark lower than a fence admitted since the key's last
   * reset was deleted or lowered outside the journal, and a negative one is no mark at all.
   * Either refuses every call of the key until an operator resets the mark.
   */
  long lockChecked(Connection c, LeaseKey key) throws SQLException {
    long[] row = lockRow(c, key);
    long fence = row[0];
    if (fence < 0) {
      throw new SQLException(
          "the mark row of " + key + " in " + mark + " holds " + fence + ", which is not a fence: the table"
              + " was edited outside the journal. Every call of the key is refused until an operator resets"
              + " its mark (FencedToolExecutor.resetMark) to the lease table's current fence for the key");
    }
    try (PreparedStatement ps =
        c.prepareStatement(
            // The highest fence admitted since the last reset, backwards through the partial index.
            "SELECT fence FROM " + call + " WHERE account_id = ? AND session_id = ? AND admitted_seq IS NOT NULL"
                + " AND admitted_seq > ? ORDER BY fence DESC LIMIT 1")) {
      ps.setString(1, key.accountId());
      ps.setString(2, key.sessionId());
      ps.setLong(3, row[1]);
      try (ResultSet rs = ps.executeQuery()) {
        if (rs.next() && rs.getLong(1) > fence) {
          throw new SQLException(
              "the mark of " + key + " in " + mark + " is " + fence + ", but calls with fence " + rs.getLong(1)
                  + " were admitted: the mark row was deleted or lowered outside the journal. Every call of"
                  + " the key is refused until an operator resets its mark (FencedToolExecutor.resetMark) to"
                  + " at least " + rs.getLong(1));
        }
      }
    }
    return fence;
  }

  /** Locks the key's mark row (creating it at 0): its fence and the admission sequence value of its last reset. */
  long[] lockRow(Connection c, LeaseKey key) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "INSERT INTO " + mark + " (account_id, session_id, fence) VALUES (?, ?, 0) ON CONFLICT DO NOTHING")) {
      ps.setString(1, key.accountId());
      ps.setString(2, key.sessionId());
      ps.executeUpdate();
    }
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT fence, reset_seq FROM " + mark + " WHERE account_id = ? AND session_id = ? FOR UPDATE")) {
      ps.setString(1, key.accountId());
      ps.setString(2, key.sessionId());
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return new long[] {rs.getLong(1), rs.getLong(2)};
      }
    }
  }
}
