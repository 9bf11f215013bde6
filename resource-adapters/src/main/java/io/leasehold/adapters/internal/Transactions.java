package io.leasehold.adapters.internal;

import io.leasehold.fencing.internal.FailedTransaction;
import java.sql.Connection;
import java.sql.SQLException;

/**
 * A transaction on one connection that nothing but its own commit can end in a commit (CONTRACT
 * C16): auto-commit off for the body, and on any {@link Throwable} the body throws (Errors and
 * sneaky checked exceptions included) a rollback before auto-commit is restored, because turning
 * auto-commit back on over an open transaction would commit it. The database writer and the
 * PostgreSQL tool journal both run their transactions through it.
 */
public final class Transactions {
  private Transactions() {}

  /** A transaction's body; it commits, by whichever statement, before it returns normally. */
  @FunctionalInterface
  public interface Body<T> {
    /**
     * Runs the transaction's statements, its commit included.
     *
     * @param c the connection, with auto-commit off
     * @return the body's result
     * @throws SQLException if a statement fails
     */
    T run(Connection c) throws SQLException;
  }

  /**
   * Runs {@code body} in a transaction on {@code c}, and leaves {@code c} with the auto-commit
   * setting it had. If the body throws, its transaction is rolled back first; if the rollback fails
   * too, the connection is aborted (a pool then discards it), so nothing can later commit what the
   * rollback should have undone; the rollback's failure is attached to the body's as suppressed.
   *
   * @param c a connection of the caller's, not in a transaction
   * @param body the statements and the commit
   * @param <T> the result
   * @return what the body returned
   * @throws SQLException if the body or the connection fails
   */
  public static <T> T run(Connection c, Body<T> body) throws SQLException {
    boolean autoCommit = c.getAutoCommit();
    c.setAutoCommit(false);
    T result;
    try {
      result = body.run(c);
    } catch (Throwable failure) {
      FailedTransaction.rollBackOrAbort(
          c,
          failure,
          () -> {
            c.rollback();
            c.setAutoCommit(autoCommit);
          });
      throw failure;
    }
    c.setAutoCommit(autoCommit);
    return result;
  }
}
