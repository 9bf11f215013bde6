package io.leasehold.adapters.tool;

import static io.leasehold.adapters.tool.JournalSql.keyed;

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
  private final JournalSql sql;

  JournalMarkRows(JournalSql sql) {
    this.sql = sql;
  }

  long markOf(Connection c, LeaseKey key) throws SQLException {
    try (PreparedStatement ps = keyed(c, sql.markOf(), key);
        ResultSet rs = ps.executeQuery()) {
      return rs.next() ? rs.getLong(1) : 0;
    }
  }

  /** Raises the key's mark to the token's fence; the caller holds the mark row's lock. */
  void raise(Connection c, FencingToken token) throws SQLException {
    setMark(c, sql.raise(), token.key(), token.fence());
  }

  /** Sets the key's mark with {@code statement}, whose parameters are the mark, account, session. */
  static void setMark(Connection c, String statement, LeaseKey key, long mark) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(statement)) {
      ps.setLong(1, mark);
      ps.setString(2, key.accountId());
      ps.setString(3, key.sessionId());
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
          "the mark row of " + key + " in " + sql.mark() + " holds " + fence + ", which is not a fence: the table"
              + " was edited outside the journal. Every call of the key is refused until an operator resets"
              + " its mark (FencedToolExecutor.resetMark) to the lease table's current fence for the key");
    }
    if (row[2] > fence) {
      throw new SQLException(
          "the mark of " + key + " in " + sql.mark() + " is " + fence + ", but calls with fence " + row[2]
              + " were admitted: the mark row was deleted or lowered outside the journal. Every call of"
              + " the key is refused until an operator resets its mark (FencedToolExecutor.resetMark) to"
              + " at least " + row[2]);
    }
    return fence;
  }

  /**
   * Locks the key's mark row (creating it at 0): its fence, the admission sequence value of its
   * last reset, and the highest fence admitted since (or {@link Long#MIN_VALUE}).
   */
  long[] lockRow(Connection c, LeaseKey key) throws SQLException {
    long[] row = lockExisting(c, key);
    if (row != null) {
      return row; // every admission but a key's first: one statement
    }
    try (PreparedStatement ps = keyed(c, sql.createMark(), key)) {
      ps.executeUpdate();
    }
    row = lockExisting(c, key);
    if (row == null) {
      throw new SQLException(
          "the mark row of " + key + " in " + sql.mark() + " was deleted while this call created it: something edits the"
              + " table outside the journal; stop it, then reset the key's mark (FencedToolExecutor.resetMark) to the"
              + " lease table's current fence for the key");
    }
    return row;
  }

  private long[] lockExisting(Connection c, LeaseKey key) throws SQLException {
    try (PreparedStatement ps = keyed(c, sql.lockMark(), key);
        ResultSet rs = ps.executeQuery()) {
      if (!rs.next()) {
        return null;
      }
      long highest = rs.getLong(3);
      return new long[] {rs.getLong(1), rs.getLong(2), rs.wasNull() ? Long.MIN_VALUE : highest};
    }
  }
}
