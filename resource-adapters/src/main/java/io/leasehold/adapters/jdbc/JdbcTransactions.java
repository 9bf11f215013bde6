package io.leasehold.adapters.jdbc;

import io.leasehold.adapters.internal.AnswerBound;
import io.leasehold.adapters.internal.LockTimeout;
import io.leasehold.adapters.internal.Transactions;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import javax.sql.DataSource;

/**
 * The database writer's transactions: a connection of its own, the high-water table's shape checked
 * first, and the statements run through {@link Transactions} (rolled back on any {@link Throwable}
 * before auto-commit is restored, CONTRACT C16), each under the {@link AnswerBound} of the lock
 * timeout, so a server that does not answer ends the transaction too (CONTRACT C21).
 */
final class JdbcTransactions {
  private final DataSource dataSource;
  private final HighWaterTableCheck tableCheck;
  private final String timeout;
  private final String onCitusWorkers;
  private final AnswerBound bound;

  /** Whether the database is a Citus coordinator; null until the first transaction asks. */
  private volatile Boolean citus;

  /**
   * @param table the high-water table, schema-qualified, whose shape every transaction checks first
   * @param lockTimeout the longest lock wait of a transaction; a read sends it first, a writing
   *     transaction's first statement carries it (the admission, or the mark's row lock, of {@code
   *     SqlMarkStore})
   * @param citus whether the database is a Citus coordinator, or null to ask it
   */
  JdbcTransactions(DataSource dataSource, String table, Duration lockTimeout, Boolean citus) {
    this.dataSource = dataSource;
    this.tableCheck = new HighWaterTableCheck(table);
    this.timeout = LockTimeout.statement(lockTimeout);
    this.onCitusWorkers = LockTimeout.onCitusWorkers(lockTimeout);
    this.bound = AnswerBound.forLockTimeout(lockTimeout);
    this.citus = citus;
  }

  /**
   * Runs a body, which commits before it returns, in a transaction after the table's shape check.
   * On a Citus coordinator the transaction first carries the lock timeout to the workers ({@link
   * LockTimeout#onCitusWorkers}).
   */
  <T> T run(Transactions.Body<T> body) throws SQLException {
    return runAround((c, callers) -> body.run(c));
  }

  /**
   * As {@link #run(Transactions.Body)}, for a body with work of the caller's, which it runs with
   * the caller's own network timeout ({@link AnswerBound.CallersSetting}).
   */
  <T> T runAround(AnswerBound.Body<T> body) throws SQLException {
    try (Connection c = dataSource.getConnection()) {
      return bound.around(
          c,
          (b, callers) -> {
            tableCheck.ensure(b);
            if (!onCitus(b)) {
              return Transactions.run(b, t -> body.run(t, callers));
            }
            return Transactions.run(
                b,
                t -> {
                  try (Statement st = t.createStatement()) {
                    st.execute(onCitusWorkers);
                  }
                  return body.run(t, callers);
                });
          });
    }
  }

  /** Whether the database is a Citus coordinator, asked on the first transaction only. */
  boolean onCitus(Connection c) throws SQLException {
    Boolean known = citus;
    if (known == null) {
      known = LockTimeout.askOnCitus(c);
      citus = known;
    }
    return known;
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
