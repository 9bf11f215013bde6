package io.leasehold.adapters.internal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;

/**
 * A transaction's {@code lock_timeout} (CONTRACT C21), set by a statement of its own ahead of the
 * statement that might wait, both sent as one composite query: one round trip, and the setting in
 * force before the next statement is bound. It must be a statement of its own: a table lock (a
 * migration's ALTER TABLE) is taken when a statement is bound, before any part of it runs, so a
 * setting made inside the waiting statement comes too late for that wait. {@code SET LOCAL}
 * semantics: the connection's own setting is back once the transaction ends. Used by the database
 * writer and the PostgreSQL tool journal.
 */
public final class LockTimeout {
  private LockTimeout() {}

  /**
   * The statement that sets the timeout for the current transaction.
   *
   * @param timeout the longest lock wait, validated by the caller (whole milliseconds are used)
   * @return the statement, without a terminator
   */
  public static String statement(Duration timeout) {
    return "SELECT set_config('lock_timeout', '" + timeout.toMillis() + "', true)";
  }

  /**
   * Whether the database is a Citus coordinator: the {@code citus} extension is installed in it
   * (the changelogs' Citus change sets ask the same). One row, one boolean. No parameters.
   */
  public static final String ON_CITUS =
      "SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_extension WHERE extname = 'citus')";

  /**
   * Asks {@link #ON_CITUS} on {@code c}; callers keep the answer, so it is asked once per writer or
   * journal.
   *
   * @param c an open connection
   * @return whether the database is a Citus coordinator
   * @throws SQLException if the question fails (the caller asks again next time)
   */
  public static boolean askOnCitus(Connection c) throws SQLException {
    try (Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(ON_CITUS)) {
      rs.next();
      return rs.getBoolean(1);
    }
  }

  /**
   * On a Citus coordinator, the commands to send first in each transaction so that the timeout also
   * bounds the waits on the workers. A row lock is waited for on the worker that holds the key's
   * shard, in a backend with settings of its own: {@link #statement}'s {@code set_config} bounds
   * the coordinator only, so a write behind a peer's row lock waited until the peer ended. Citus
   * passes a setting on only as a {@code SET LOCAL} command in a transaction block, and only while
   * {@code citus.propagate_set_commands} is {@code local}; it sends it with the {@code BEGIN} of
   * each worker's part of the transaction. One more round trip per transaction, on Citus only;
   * plain PostgreSQL never gets these (the setting there would be a harmless placeholder).
   *
   * @param timeout the longest lock wait, validated by the caller (whole milliseconds are used)
   * @return two commands, without a terminator
   */
  public static String onCitusWorkers(Duration timeout) {
    return "SET LOCAL citus.propagate_set_commands = 'local'; SET LOCAL lock_timeout = "
        + timeout.toMillis();
  }

  /**
   * {@code sql} behind the statement that sets the timeout, as one composite query; run it with
   * {@link #rowsAfter} or {@link #countAfter}.
   *
   * @param timeout the longest lock wait
   * @param sql the statement that may wait
   * @return the composite query
   */
  public static String ahead(Duration timeout, String sql) {
    return statement(timeout) + "; " + sql;
  }

  /**
   * Runs a query built by {@link #ahead} whose statement returns rows.
   *
   * @param ps the prepared composite query, its parameters bound
   * @return the statement's rows (the setting's row comes first and is skipped)
   * @throws SQLException if either statement fails
   */
  public static ResultSet rowsAfter(PreparedStatement ps) throws SQLException {
    ps.execute();
    if (!ps.getMoreResults()) {
      throw new SQLException("expected rows after the lock timeout's row");
    }
    return ps.getResultSet();
  }

  /**
   * Runs a query built by {@link #ahead} whose statement returns an update count.
   *
   * @param ps the prepared composite query, its parameters bound
   * @return the statement's update count
   * @throws SQLException if either statement fails
   */
  public static int countAfter(PreparedStatement ps) throws SQLException {
    ps.execute();
    if (ps.getMoreResults() || ps.getUpdateCount() < 0) {
      throw new SQLException("expected an update count after the lock timeout's row");
    }
    return ps.getUpdateCount();
  }
}
