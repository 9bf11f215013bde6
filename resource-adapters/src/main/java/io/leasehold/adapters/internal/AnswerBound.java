package io.leasehold.adapters.internal;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;

/**
 * How long a guard's transaction waits for the database to answer (CONTRACT C21): the connection's
 * network timeout, twice the lock timeout plus one second. The server's {@code lock_timeout} ends a
 * wait for a lock, but nothing on the server ends one in a process that does not run (a stopped or
 * hung backend; on Citus, a coordinator waiting for a stopped worker). The lock timeout bounds the
 * lock wait, not the statement's own work nor the commit (the WAL flush, a synchronous standby's
 * answer): the second lock timeout leaves that much for them and the second for the answer's trip,
 * so a healthy server that is merely slow still answers first, with {@code 55P03}.
 *
 * <p>Past the bound the driver (pgjdbc: the socket's read timeout) closes the connection, so a pool
 * drops it, and the statement fails with SQLState {@code 08006}. Setting it is a field write in
 * pgjdbc, no system call, and pgjdbc ignores the executor, so no thread is involved. The caller's
 * setting is put back afterwards, for pools that do not reset it on return (HikariCP does).
 *
 * @param millis the bound, in milliseconds
 * @param lockTimeout the server-side budget it is built from
 */
public record AnswerBound(int millis, Duration lockTimeout) {
  /**
   * The bound for a guard with this lock timeout.
   *
   * @param lockTimeout the guard's lock timeout
   * @return the bound
   */
  public static AnswerBound forLockTimeout(Duration lockTimeout) {
    return new AnswerBound(
        (int) Math.min(Integer.MAX_VALUE, lockTimeout.toMillis() * 2 + 1_000), lockTimeout);
  }

  /** A body run under the bound, which may hand part of its work back the caller's own setting. */
  @FunctionalInterface
  public interface Body<T> {
    /**
     * Runs the statements.
     *
     * @param c the connection, under the bound
     * @param callers runs work with the caller's own setting instead
     * @return the result
     * @throws SQLException if a statement fails
     */
    T run(Connection c, CallersSetting callers) throws SQLException;
  }

  /**
   * The caller's network timeout, for work that is the caller's own (a writer's {@link
   * Transactions.Body}), which the guard has no budget for.
   *
   * @param c the connection
   * @param callersMillis the caller's setting
   * @param boundMillis the guard's bound, set again after the work
   */
  public record CallersSetting(Connection c, int callersMillis, int boundMillis) {
    /**
     * Runs {@code work} with the caller's setting, then sets the bound again.
     *
     * @param work the caller's work
     * @param <T> its result
     * @return what it returned
     * @throws SQLException if it fails
     */
    public <T> T run(Transactions.Body<T> work) throws SQLException {
      c.setNetworkTimeout(Runnable::run, callersMillis);
      T result = work.run(c);
      c.setNetworkTimeout(Runnable::run, boundMillis);
      return result;
    }
  }

  /**
   * Runs {@code body} under the bound and puts the caller's setting back, if the connection is
   * still open.
   *
   * @param c a connection of the caller's
   * @param body the statements
   * @param <T> the result
   * @return what the body returned
   * @throws SQLException if the body fails, or the bound ends it
   */
  public <T> T around(Connection c, Body<T> body) throws SQLException {
    int callers = c.getNetworkTimeout();
    c.setNetworkTimeout(Runnable::run, millis);
    T result;
    try {
      result = body.run(c, new CallersSetting(c, callers, millis));
    } catch (Throwable failure) {
      // The body's failure is what flies; a connection it aborted may refuse the setting.
      try {
        restore(c, callers);
      } catch (SQLException | RuntimeException e) {
        failure.addSuppressed(e);
      }
      throw failure;
    }
    restore(c, callers);
    return result;
  }

  private static void restore(Connection c, int callers) throws SQLException {
    if (!c.isClosed()) {
      c.setNetworkTimeout(Runnable::run, callers);
    }
  }

  /**
   * Runs a commit: if the bound ends it, its outcome is unknown (the server may commit once it runs
   * again), which {@link CommitOutcomeUnknown} says.
   *
   * @param commit the statement that commits
   * @throws SQLException if it fails
   */
  public static void commit(Commit commit) throws SQLException {
    try {
      commit.run();
    } catch (SQLException e) {
      if (noAnswer(e)) {
        throw new CommitOutcomeUnknown(e);
      }
      throw e;
    }
  }

  /** A statement that commits. */
  @FunctionalInterface
  public interface Commit {
    /**
     * Sends it.
     *
     * @throws SQLException if it fails
     */
    void run() throws SQLException;
  }

  /** A commit that got no answer within the bound: it may or may not have committed. */
  public static final class CommitOutcomeUnknown extends SQLException {
    private static final long serialVersionUID = 1L;

    CommitOutcomeUnknown(SQLException cause) {
      super(cause.getMessage(), cause.getSQLState(), cause);
    }
  }

  /**
   * Whether a failure was this bound: the driver's read of the answer timed out.
   *
   * @param e the failure
   * @return true if the answer did not come within the bound
   */
  public static boolean noAnswer(SQLException e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof java.net.SocketTimeoutException) {
        return true;
      }
    }
    return false;
  }

  /**
   * What a failure that was this bound waited for, and the repair; empty for any other failure.
   *
   * @param e the failure
   * @return the text to add to the guard's error
   */
  public String waitedFor(SQLException e) {
    if (!noAnswer(e)) {
      return "";
    }
    return "; no answer from the database within "
        + millis
        + " ms (twice the lock timeout of "
        + lockTimeout.toMillis()
        + " ms, plus 1 s): the server process, or on Citus a worker, is stopped or hung, or the"
        + " network dropped; the connection was closed"
        + (e instanceof CommitOutcomeUnknown
            ? ". The COMMIT got no answer: whether the transaction committed is unknown; read the"
                + " high-water mark or the rows to find out before trying again"
            : ", nothing was committed")
        + ". Find the process in pg_stat_activity (and on Citus the worker's) and check the server"
        + " and the network";
  }
}
