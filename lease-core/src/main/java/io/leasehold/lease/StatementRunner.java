package io.leasehold.lease;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.function.Supplier;
import javax.sql.DataSource;

/**
 * Runs the statements of {@link LeaseSql}: each one a pipelined short transaction on an
 * auto-commit connection borrowed for that statement alone (CONTRACT C5), whose first result set
 * is the opening's row (database time, timeouts) and whose second is the statement's answer.
 */
final class StatementRunner {
  /** SQLSTATE of a lock wait that reached {@code lock_timeout}. */
  static final String LOCK_NOT_AVAILABLE = "55P03";

  /** SQLSTATE of a table, sequence or other relation that does not exist. */
  static final String UNDEFINED_TABLE = "42P01";

  private final DataSource dataSource;
  private final LeaseSchema schema;

  StatementRunner(DataSource dataSource, LeaseSchema schema) {
    this.dataSource = dataSource;
    this.schema = schema;
  }

  /** Binds a statement's parameters; may create arrays on the connection. */
  @FunctionalInterface
  interface Binder {
    void bind(PreparedStatement ps, Connection c) throws SQLException;
  }

  /** Binds a statement's parameters. */
  @FunctionalInterface
  interface SimpleBinder extends Binder {
    void bind(PreparedStatement ps) throws SQLException;

    @Override
    default void bind(PreparedStatement ps, Connection c) throws SQLException {
      bind(ps);
    }
  }

  /** Reads a statement's answer. */
  @FunctionalInterface
  interface Reader<T> {
    /**
     * @param rs the statement's result
     * @param opened the database clock at the opening of the short transaction, read on demand
     */
    T read(ResultSet rs, OpeningTime opened) throws SQLException;
  }

  /** The opening's database time, parsed only when asked for. */
  @FunctionalInterface
  interface OpeningTime {
    Instant get() throws SQLException;
  }

  /** Reads the time from the opening's result set on first use. */
  private static final class OpeningRow implements OpeningTime {
    private final ResultSet row;
    private Instant time;

    OpeningRow(ResultSet row) {
      this.row = row;
    }

    @Override
    public Instant get() throws SQLException {
      if (time == null) {
        if (!row.next()) {
          throw new SQLException("the opening returned no row");
        }
        time = instant(row, 1);
      }
      return time;
    }
  }

  <T> T execute(String statement, Supplier<String> what, SimpleBinder binder, Reader<T> reader) {
    return execute(statement, what, (Binder) binder, reader);
  }

  /** Runs one pipelined short transaction and reads its only result set. */
  <T> T execute(String statement, Supplier<String> what, Binder binder, Reader<T> reader) {
    try (Connection c = dataSource.getConnection()) {
      boolean autoCommit = c.getAutoCommit();
      if (!autoCommit) {
        c.setAutoCommit(true);
      }
      try (PreparedStatement ps = c.prepareStatement(statement)) {
        binder.bind(ps, c);
        boolean isResultSet = ps.execute();
        // The first result set is the opening's row (time, set_config). It stays open (closing
        // the statement closes it), and its time is parsed only if the reader asks for it.
        ResultSet opening = null;
        while (true) {
          if (isResultSet) {
            ResultSet rs = ps.getResultSet();
            if (opening != null) {
              try (rs) {
                return reader.read(rs, new OpeningRow(opening));
              }
            }
            opening = rs;
            isResultSet = ps.getMoreResults(Statement.KEEP_CURRENT_RESULT);
          } else if (ps.getUpdateCount() == -1) {
            throw new IllegalStateException("statement returned no result set: " + what.get());
          } else {
            isResultSet = ps.getMoreResults(Statement.KEEP_CURRENT_RESULT);
          }
        }
      } finally {
        if (!autoCommit && !c.isClosed()) {
          c.setAutoCommit(false);
        }
      }
    } catch (SQLException e) {
      String repair =
          UNDEFINED_TABLE.equals(e.getSQLState())
              ? "; the lease schema is missing from this database: apply it first with "
                  + schema.describeApply() + ", or run LeaseSchema.sqlScript()"
              : "";
      throw new LeaseStoreException(
          "could not " + what.get() + ": " + e.getMessage() + " (SQLState " + e.getSQLState() + ")" + repair, e);
    }
  }

  /** Whether a store failure was a lock wait that reached the lock timeout. */
  static boolean isLockTimeout(LeaseStoreException e) {
    return e.getCause() instanceof SQLException s && LOCK_NOT_AVAILABLE.equals(s.getSQLState());
  }

  static long micros(Duration d) {
    return d.toNanos() / 1_000;
  }

  static Instant instant(ResultSet rs, int column) throws SQLException {
    return rs.getObject(column, OffsetDateTime.class).toInstant();
  }

  static Array array(Connection c, String type, Object[] values) throws SQLException {
    return c.createArrayOf(type, values);
  }
}
