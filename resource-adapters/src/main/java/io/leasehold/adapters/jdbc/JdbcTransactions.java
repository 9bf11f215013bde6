package io.leasehold.adapters.jdbc;

import io.leasehold.adapters.internal.Transactions;
import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;

/**
 * The database writer's transactions: a connection of its own, the high-water table's shape
 * checked first, and the statements run through {@link Transactions} (rolled back on any {@link
 * Throwable} before auto-commit is restored, CONTRACT C16).
 */
final class JdbcTransactions {
  private final DataSource dataSource;
  private final HighWaterTableCheck tableCheck;

  JdbcTransactions(DataSource dataSource, HighWaterTableCheck tableCheck) {
    this.dataSource = dataSource;
    this.tableCheck = tableCheck;
  }

  /** Runs a body, which commits before it returns, in a transaction after the table's shape check. */
  <T> T run(Transactions.Body<T> body) throws SQLException {
    try (Connection c = dataSource.getConnection()) {
      tableCheck.ensure(c);
      return Transactions.run(c, body);
    }
  }

  /** Runs a read on a connection of its own, in auto-commit, after the table's shape check. */
  <T> T read(Transactions.Body<T> body) throws SQLException {
    try (Connection c = dataSource.getConnection()) {
      tableCheck.ensure(c);
      return body.run(c);
    }
  }
}
