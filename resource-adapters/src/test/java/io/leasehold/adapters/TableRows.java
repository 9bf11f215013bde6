package io.leasehold.adapters;

import io.leasehold.testing.RowLocks;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/** What a database guard stores, as one number: the rows of every table in the public schema. */
public final class TableRows {
  private TableRows() {}

  public static long total(DataSource ds) {
    try (Connection c = ds.getConnection();
        Statement st = c.createStatement()) {
      List<String> tables = new ArrayList<>();
      try (ResultSet rs =
          st.executeQuery(
              "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'")) {
        while (rs.next()) {
          tables.add(rs.getString(1));
        }
      }
      long rows = 0;
      for (String t : tables) {
        try (ResultSet rs =
            st.executeQuery("SELECT count(*) FROM public.\"" + t.replace("\"", "\"\"") + "\"")) {
          rs.next();
          rows += rs.getLong(1);
        }
      }
      return rows;
    } catch (SQLException e) {
      throw new IllegalStateException("could not count rows: " + e, e);
    }
  }

  /**
   * A transaction on another connection that holds {@code sql}'s row lock until closed: a stuck
   * peer.
   */
  public static AutoCloseable holdRowLock(DataSource ds, String sql, String... params)
      throws SQLException {
    Connection c = RowLocks.hold(ds.getConnection(), sql, params);
    return () -> {
      try (c) {
        c.rollback();
      }
    };
  }
}
