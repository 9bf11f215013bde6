package io.leasehold.adapters.jdbc;

import io.leasehold.fencing.FencingToken;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Set;
import org.postgresql.core.BaseConnection;
import org.postgresql.core.TransactionState;

/**
 * The connection the work of a fenced transaction is given: the real one, except that it refuses to
 * end or split the transaction. A work that committed itself would commit its writes without the
 * admission (at commit) or the live-lease check (strict mode); one that rolled back or turned on
 * auto-commit would leave the admission's row lock. Savepoints stay allowed.
 */
final class WorkConnection {
  private static final Set<String> REFUSED =
      Set.of("commit", "rollback", "setAutoCommit", "close", "abort", "setTransactionIsolation");

  private WorkConnection() {}

  static Connection wrap(Connection real) {
    return (Connection)
        Proxy.newProxyInstance(
            WorkConnection.class.getClassLoader(),
            new Class<?>[] {Connection.class},
            (proxy, method, args) -> {
              String name = method.getName();
              // rollback(Savepoint) undoes part of the work and keeps the transaction: allowed.
              boolean partialRollback = name.equals("rollback") && args != null && args.length == 1;
              if (REFUSED.contains(name) && !partialRollback) {
                throw new SQLException(
                    "Connection."
                        + name
                        + "() is refused inside a fenced transaction:"
                        + " FencedJdbcWriter commits or rolls back the whole transaction itself",
                    "25000");
              }
              if (name.equals("unwrap") || name.equals("isWrapperFor")) {
                throw new SQLException(
                    "the real connection is not handed out inside a fenced transaction", "25000");
              }
              try {
                return method.invoke(real, args);
              } catch (InvocationTargetException e) {
                throw e.getCause();
              }
            });
  }

  /**
   * Whether pgjdbc's connection class is there and readable from here: the driver is an optional
   * dependency, and a module that cannot read it must not touch its types.
   */
  private static final boolean PGJDBC = pgjdbcReadable();

  /** The SQLSTATE PostgreSQL answers any statement with in an aborted transaction. */
  private static final String IN_FAILED_TRANSACTION = "25P02";

  /**
   * Work that committed or rolled back the transaction itself, or turned auto-commit back on, has
   * left the admission's row lock: what follows would no longer be one transaction with it. Work
   * that caught an SQL error and returned normally has left the transaction aborted: PostgreSQL
   * answers its COMMIT with a rollback, which pgjdbc (42.7) reports as a commit that succeeded, so
   * the writer would acknowledge a write that kept nothing (CONTRACT C10).
   */
  static void requireOpenTransaction(Connection c, FencingToken token) throws SQLException {
    if (c.getAutoCommit()) {
      throw new IllegalStateException(
          "the work for "
              + token
              + " switched the connection to auto-commit; a fenced transaction"
              + " must be committed by FencedJdbcWriter, never by the work");
    }
    if (aborted(c)) {
      // The caller reads this after "fenced transaction for <token> failed and was rolled back: ".
      throw new SQLException(
          "the work swallowed an SQL error: PostgreSQL aborted the transaction at the failed"
              + " statement, so nothing of it can commit and the mark stays as it was. Let the"
              + " work rethrow the error, or run the statement that may fail inside a savepoint"
              + " and roll back to it (Connection.setSavepoint, rollback(Savepoint))",
          IN_FAILED_TRANSACTION);
    }
  }

  /**
   * Whether the transaction is aborted. pgjdbc knows it without a round trip, from the status of
   * the server's last ReadyForQuery; through another driver, or a wrapper that hides pgjdbc, one
   * statement asks, which PostgreSQL refuses in an aborted transaction.
   */
  private static boolean aborted(Connection c) throws SQLException {
    if (PGJDBC && c.isWrapperFor(BaseConnection.class)) {
      return c.unwrap(BaseConnection.class).getTransactionState() == TransactionState.FAILED;
    }
    try (Statement st = c.createStatement()) {
      st.execute("SELECT 1");
      return false;
    } catch (SQLException e) {
      if (IN_FAILED_TRANSACTION.equals(e.getSQLState())) {
        return true;
      }
      throw e;
    }
  }

  private static boolean pgjdbcReadable() {
    try {
      Class<?> driver =
          Class.forName(
              "org.postgresql.core.BaseConnection", false, WorkConnection.class.getClassLoader());
      return WorkConnection.class.getModule().canRead(driver.getModule());
    } catch (ClassNotFoundException absent) {
      return false; // no pgjdbc: the statement asks instead
    }
  }
}
