package io.leasehold.adapters.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;

/**
 * The database writer's transactions: a connection of its own with auto-commit off, and a
 * rollback on any {@link Throwable} (Errors and sneaky checked exceptions included) before
 * auto-commit is restored, because restoring it on an open transaction would commit it
 * (CONTRACT C16).
 */
final class JdbcTransactions {
  /** A transaction's body; it commits (by whichever statement) before it returns. */
  @FunctionalInterface
  interface Body<T> {
    T run(Connection c) throws SQLException;
  }

  private final DataSource dataSource;
  private final HighWaterTableCheck tableCheck;

  JdbcTransactions(DataSource dataSource, HighWaterTableCheck tableCheck) {
    this.dataSource = dataSource;
    this.tableCheck = tableCheck;
  }

  /** Runs a body in a transaction, after the table's shape check. */
  <T> T run(Body<T> body) throws SQLException {
    try (Connection c = dataSource.getConnection()) {
      tableCheck.ensure(c);
      boolean autoCommit = c.getAutoCommit();
      c.setAutoCommit(false);
      boolean committed = false;
      try {
        T result = body.run(c);
        committed = true;
        return result;
      } catch (Throwable e) {
        rollback(c, e);
        throw e;
      } finally {
        if (committed) {
          c.setAutoCommit(autoCommit);
        } else {
          restoreAfterRollback(c, autoCommit);
        }
      }
    }
  }

  /** Runs a read on a connection of its own, in auto-commit, after the table's shape check. */
  <T> T read(Body<T> body) throws SQLException {
    try (Connection c = dataSource.getConnection()) {
      tableCheck.ensure(c);
      return body.run(c);
    }
  }

  private static void rollback(Connection c, Throwable failure) {
    try {
      c.rollback();
    } catch (SQLException | RuntimeException e) {
      failure.addSuppressed(e);
    }
  }

  /**
   * Turns auto-commit back on only on a connection whose transaction was rolled back; if the
   * rollback failed, the connection is closed unusable instead (a pool then discards it), so
   * nothing can commit what the rollback should have undone.
   */
  private static void restoreAfterRollback(Connection c, boolean autoCommit) throws SQLException {
    if (!autoCommit) {
      return;
    }
    try {
      c.rollback();
      c.setAutoCommit(true);
    } catch (SQLException e) {
      try {
        c.abort(Runnable::run);
      } catch (SQLException | RuntimeException ignored) {
        e.addSuppressed(ignored);
      }
      throw e;
    }
  }
}
