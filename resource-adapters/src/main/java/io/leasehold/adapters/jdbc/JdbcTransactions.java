package io.leasehold.adapters.jdbc;

import io.leasehold.adapters.internal.Transactions;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;

/**
 * The database writer's transactions: a connection of its own, the high-water table's shape checked
 * first, and the statements run through {@link Transactions} (rolled back on any {@link Throwable}
 * before auto-commit is restored, CONTRACT C16).
 */
final class JdbcTransactions {
  private final DataSource dataSource;
  private final HighWaterTableCheck tableCheck;
  private final String timeout;

  /**
   * @param timeout the statement that sets the transaction's lock timeout, which a read sends first
   *     (a writing transaction's first statement carries it: the admission, or the mark's row lock,
   *     of {@code SqlMarkStore})
   */
  JdbcTransactions(DataSource dataSource, HighWaterTableCheck tableCheck, String timeout) {
    this.dataSource = dataSource;
    this.tableCheck = tableCheck;
    this.timeout = timeout;
  }

  /**
   * Runs a body, which commits before it returns, in a transaction after the table's shape check.
   */
  <T> T run(Transactions.Body<T> body) throws SQLException {
    try (Connection c = dataSource.getConnection()) {
      tableCheck.ensure(c);
      return Transactions.run(c, body);
    }
  }

  /**
   * Runs a read after the table's shape check, in a transaction of its own that sets the lock
   * timeout first: even a plain read waits for a table lock held elsewhere (a migration's ALTER
   * TABLE), and that wait must end too (CONTRACT C21).
   */
  <T> T read(Transactions.Body<T> body) throws SQLException {
    return run(
        c -> {
          try (Statement st = c.createStatement()) {
            st.execute(timeout);
          }
          T result = body.run(c);
          c.commit();
          return result;
        });
  }
}
