package io.leasehold.fencing.internal;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * The end of a JDBC transaction whose body failed, shared by the lease store's statements and the
 * resource adapters' transactions: roll back, or else abort the connection, so that nothing can
 * later commit what the rollback should have undone (CONTRACT C16). Not an API.
 */
public final class FailedTransaction {
  private FailedTransaction() {}

  /** The steps that end the transaction: its rollback, and auto-commit restored. */
  @FunctionalInterface
  public interface Rollback {
    /**
     * Rolls the transaction back.
     *
     * @throws SQLException if the connection fails
     */
    void run() throws SQLException;
  }

  /**
   * Runs {@code rollback}; if it fails, aborts {@code c} (a pool then discards it rather than hand
   * it back inside a transaction). Every failure here is attached to {@code failure}, the body's,
   * as suppressed; the caller throws {@code failure}.
   *
   * @param c the transaction's connection
   * @param failure what the body threw
   * @param rollback the rollback and what goes with it
   */
  public static void rollBackOrAbort(Connection c, Throwable failure, Rollback rollback) {
    try {
      rollback.run();
    } catch (SQLException | RuntimeException e) {
      failure.addSuppressed(e);
      try {
        c.abort(Runnable::run);
      } catch (SQLException | RuntimeException a) {
        failure.addSuppressed(a);
      }
    }
  }
}
