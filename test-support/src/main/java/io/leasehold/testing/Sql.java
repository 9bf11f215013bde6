package io.leasehold.testing;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/**
 * One parameterised statement, run where a test must reach past the library (to age a lease, move a
 * shard, read the audit table): the SQL and its values side by side at the call, bound as
 * parameters so that no test value is spliced into the text.
 */
public final class Sql {
  private Sql() {}

  /**
   * Runs one statement on a connection of {@code dataSource}.
   *
   * @param dataSource where to run it
   * @param sql the statement, with a {@code ?} for each of {@code params}
   * @param params its parameters in order, bound with {@link PreparedStatement#setObject(int,
   *     Object)}
   * @return the rows it changed
   * @throws SQLException if it fails
   */
  public static int update(DataSource dataSource, String sql, Object... params)
      throws SQLException {
    try (Connection c = dataSource.getConnection()) {
      return update(c, sql, params);
    }
  }

  /**
   * Runs one statement on {@code c}, in whatever transaction {@code c} is in.
   *
   * @param c the connection, left open
   * @param sql the statement, with a {@code ?} for each of {@code params}
   * @param params its parameters in order
   * @return the rows it changed
   * @throws SQLException if it fails
   */
  public static int update(Connection c, String sql, Object... params) throws SQLException {
    try (PreparedStatement ps = bound(c, sql, params)) {
      return ps.executeUpdate();
    }
  }

  /**
   * Runs one query on a connection of {@code dataSource} and returns its rows.
   *
   * @param dataSource where to run it
   * @param sql the query, with a {@code ?} for each of {@code params}
   * @param params its parameters in order
   * @return the rows, each a list of the column values as the driver gives them
   * @throws SQLException if it fails
   */
  public static List<List<Object>> query(DataSource dataSource, String sql, Object... params)
      throws SQLException {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = bound(c, sql, params);
        ResultSet rs = ps.executeQuery()) {
      return rows(rs);
    }
  }

  /** Every row of {@code rs}, each a list of its column values as the driver gives them. */
  static List<List<Object>> rows(ResultSet rs) throws SQLException {
    List<List<Object>> rows = new ArrayList<>();
    int columns = rs.getMetaData().getColumnCount();
    while (rs.next()) {
      List<Object> row = new ArrayList<>();
      for (int i = 1; i <= columns; i++) {
        row.add(rs.getObject(i));
      }
      rows.add(row);
    }
    return rows;
  }

  private static PreparedStatement bound(Connection c, String sql, Object... params)
      throws SQLException {
    PreparedStatement ps = c.prepareStatement(sql);
    try {
      for (int i = 0; i < params.length; i++) {
        ps.setObject(i + 1, params[i]);
      }
    } catch (SQLException | RuntimeException e) {
      ps.close();
      throw e;
    }
    return ps;
  }
}
