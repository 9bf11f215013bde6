package io.leasehold.adapters.jdbc;

import io.leasehold.fencing.FencingToken;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Set;

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
   * Work that committed or rolled back the transaction itself, or turned auto-commit back on, has
   * left the admission's row lock: what follows would no longer be one transaction with it.
   */
  static void requireOpenTransaction(Connection c, FencingToken token) throws SQLException {
    if (c.getAutoCommit()) {
      throw new IllegalStateException(
          "the work for "
              + token
              + " switched the connection to auto-commit; a fenced transaction"
              + " must be committed by FencedJdbcWriter, never by the work");
    }
  }
}
