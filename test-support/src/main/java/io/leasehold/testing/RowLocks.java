package io.leasehold.testing;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * Row locks held from a side connection, as a peer stuck in the middle of its transaction holds
 * them: what the tests of lock timeouts (CONTRACT C18, C21) make a store or a guard wait for.
 */
public final class RowLocks {
  private RowLocks() {}

  /**
   * Takes, on {@code c} in a transaction of its own, the row locks of {@code lockingQuery} (a
   * {@code SELECT ... FOR UPDATE} whose parameters are the texts {@code params}), and keeps them
   * until {@code c} rolls back or closes.
   *
   * @param c the side connection, closed here if taking the locks fails
   * @param lockingQuery the query that locks the rows
   * @param params its parameters, in order
   * @return {@code c}, holding the locks
   * @throws SQLException if the query fails
   * @throws IllegalStateException if it found no row to lock (the test would prove nothing)
   */
  public static Connection hold(Connection c, String lockingQuery, String... params)
      throws SQLException {
    try {
      c.setAutoCommit(false);
      try (PreparedStatement ps = c.prepareStatement(lockingQuery)) {
        for (int i = 0; i < params.length; i++) {
          ps.setString(i + 1, params[i]);
        }
        try (ResultSet rs = ps.executeQuery()) {
          if (!rs.next()) {
            throw new IllegalStateException("no row to lock: " + lockingQuery);
          }
        }
      }
    } catch (SQLException | RuntimeException e) {
      c.close();
      throw e;
    }
    return c;
  }
}
