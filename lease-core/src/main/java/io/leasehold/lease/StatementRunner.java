package io.leasehold.lease;

import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.internal.FailedTransaction;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.temporal.ChronoUnit;
import java.util.Collections;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.postgresql.PGResultSetMetaData;

/**
 * Runs the store's statements (those of {@link AcquireStatements}, {@link ReleaseStatements} and
 * the others): each one a short transaction on an auto-commit connection borrowed for that
 * statement alone, under the timeouts of its {@link StatementSettings}. Its last result set is the
 * statement's answer; one before it is the opening's row (database time, timeouts).
 *
 * <p>With session timeouts (a pool that serves the store alone), each physical connection gets
 * {@link StatementSettings#sessionTimeouts()} before its first statement. Connections are told
 * apart by the driver's own connection object, which pools keep for the connection's life; a pool
 * that hands out a new one per borrow only costs the setting again.
 *
 * <p>On a Citus coordinator (asked once, {@link StatementSettings#ON_CITUS}, on the store's first
 * statement) each statement runs behind {@link StatementSettings#citusOpening()} in a transaction
 * block of its own, committed, or rolled back if it fails, before the connection goes back.
 */
final class StatementRunner {
  /** SQLSTATE of a lock wait that reached {@code lock_timeout}. */
  static final String LOCK_NOT_AVAILABLE = "55P03";

  /** SQLSTATE of a table, sequence or other relation that does not exist. */
  static final String UNDEFINED_TABLE = "42P01";

  private final DataSource dataSource;
  private final LeaseSchema schema;

  /** The session settings to send once per connection, or null (every statement opens). */
  private final String sessionTimeouts;

  /** What goes ahead of each statement on Citus, in its transaction block. */
  private final String citusOpening;

  /** The driver connections that have the session settings; weak, so closed ones go. */
  private final Map<Object, Boolean> prepared = Collections.synchronizedMap(new WeakHashMap<>());

  /** Whether the database is a Citus coordinator; null until the first statement asks. */
  private volatile Boolean citus;

  /** The statement timeout, in milliseconds: the server's own bound on a statement. */
  private final long statementTimeoutMillis;

  /** How long the client waits for an answer: {@link #answerBound}, in whole milliseconds. */
  private final int answerBoundMillis;

  StatementRunner(DataSource dataSource, StatementSettings settings) {
    this(dataSource, settings, null);
  }

  /**
   * @param citus whether the database is a Citus coordinator, or null to ask it
   */
  StatementRunner(DataSource dataSource, StatementSettings settings, Boolean citus) {
    this.dataSource = dataSource;
    this.schema = settings.schema();
    this.sessionTimeouts = settings.sessionTimeouts();
    this.citusOpening = settings.citusOpening();
    this.citus = citus;
    this.statementTimeoutMillis = settings.statementTimeout().toMillis();
    this.answerBoundMillis = answerBound(settings.statementTimeout());
  }

  /**
   * How long the client waits for a statement's answer (the connection's network timeout): twice
   * the statement timeout plus one second. The server's {@code statement_timeout} cannot end a wait
   * in a process that does not run (a stopped or hung backend; on Citus, a coordinator waiting for
   * a stopped worker to take its cancel), so the client bounds it too (CONTRACT C21, C5). The
   * statement timeout bounds the statement, not its commit (the WAL flush, a synchronous standby's
   * answer) nor the Citus coordinator's cancel of the workers' parts: the second statement timeout
   * leaves that much for them, and the second for the answer's trip, so a healthy server that is
   * merely slow still answers first, with the statement timeout's own error ({@code 57014}).
   *
   * <p>It bounds silence, not the call: the driver's socket read times out when nothing has come
   * for this long, and every message from the server starts the wait again. A server that is silent
   * throughout (a stopped backend) ends the call at the bound. A Citus coordinator behind a stopped
   * worker sends its {@code 57014} at the statement timeout and then nothing (it waits for the
   * worker to take its cancel): the call ends at the statement timeout plus the bound. Over TLS the
   * driver's close of the socket then waits up to the bound once more (the JDK's TLS socket reads
   * for the server's close alert under the same timeout). See docs/lease-store.md.
   */
  static int answerBound(Duration statementTimeout) {
    return (int) Math.min(Integer.MAX_VALUE, statementTimeout.toMillis() * 2 + 1_000);
  }

  /** Binds a statement's parameters; may create arrays on the connection. */
  @FunctionalInterface
  interface Binder {
    void bind(PreparedStatement ps, Connection c) throws SQLException;
  }

  /** Binds a statement's parameters. */
  @FunctionalInterface
  interface SimpleBinder extends Binder {
    void bind(PreparedStatement ps) throws SQLException;

    @Override
    default void bind(PreparedStatement ps, Connection c) throws SQLException {
      bind(ps);
    }
  }

  /** Reads a statement's answer. */
  @FunctionalInterface
  interface Reader<T> {
    /**
     * @param rs the statement's result
     * @param opened the database clock at the opening of the short transaction, read on demand
     */
    T read(ResultSet rs, OpeningTime opened) throws SQLException;
  }

  /** The opening's database time, parsed only when asked for. */
  @FunctionalInterface
  interface OpeningTime {
    Instant get() throws SQLException;
  }

  /** For a statement sent without an opening. */
  private static final OpeningTime NO_OPENING =
      () -> {
        throw new IllegalStateException(
            "the statement was sent without an opening; read the time in it");
      };

  /** Reads the time from the opening's result set on first use. */
  private static final class OpeningRow implements OpeningTime {
    private final ResultSet row;
    private Instant time;

    OpeningRow(ResultSet row) {
      this.row = row;
    }

    @Override
    public Instant get() throws SQLException {
      if (time == null) {
        if (!row.next()) {
          throw new SQLException("the opening returned no row");
        }
        time = instant(row, 1);
      }
      return time;
    }
  }

  <T> T execute(String statement, Supplier<String> what, SimpleBinder binder, Reader<T> reader) {
    return execute(statement, statement, what, binder, reader);
  }

  <T> T execute(
      String statement,
      String onCitus,
      Supplier<String> what,
      SimpleBinder binder,
      Reader<T> reader) {
    return execute(statement, onCitus, what, (Binder) binder, reader);
  }

  <T> T execute(String statement, Supplier<String> what, Binder binder, Reader<T> reader) {
    return execute(statement, statement, what, binder, reader);
  }

  /**
   * Runs one short transaction and reads its answer, its last result set, waiting at most {@link
   * #answerBound} for each message of it (on Citus, the commit or rollback gets what is left of the
   * bound). Past that the driver closes the connection (a pool then drops it) and the statement
   * fails with a {@link LeaseStoreException} that names the wait; its outcome is then unknown: the
   * server may still run and commit it once it resumes (an acquire's row then holds the key for a
   * run no caller has, until its TTL; a renewal counts as failed, so the lease is lost, CONTRACT
   * C6).
   *
   * @param statement the text sent to one PostgreSQL
   * @param onCitus the text sent to a Citus coordinator: the same parameters and answer, written in
   *     the forms Citus accepts (which cost one PostgreSQL more to run; {@link
   *     AcquireStatements#acquire})
   */
  <T> T execute(
      String statement, String onCitus, Supplier<String> what, Binder binder, Reader<T> reader) {
    try (Connection c = dataSource.getConnection()) {
      boolean autoCommit = c.getAutoCommit();
      // The driver keeps the network timeout as its socket's read timeout: setting it is a field
      // write, no system call (pgjdbc ignores the executor, so no thread is involved). A pool that
      // does not reset it on return gets the caller's value back below.
      int callersBound = c.getNetworkTimeout();
      c.setNetworkTimeout(Runnable::run, answerBoundMillis);
      if (!autoCommit) {
        c.setAutoCommit(true);
      }
      try {
        if (sessionTimeouts != null) {
          setSessionTimeouts(c);
        }
        return onCitus(c)
            ? inTransactionBlock(c, citusOpening + onCitus, what, binder, reader, System.nanoTime())
            : run(c, statement, what, binder, reader);
      } finally {
        if (!c.isClosed()) {
          if (!autoCommit) {
            c.setAutoCommit(false);
          }
          c.setNetworkTimeout(Runnable::run, callersBound);
        }
      }
    } catch (SQLException e) {
      throw new LeaseStoreException(
          "could not "
              + what.get()
              + ": "
              + e.getMessage()
              + " (SQLState "
              + e.getSQLState()
              + ")"
              + repair(e),
          e);
    }
  }

  /** Reads the one row of a statement's answer. */
  @FunctionalInterface
  interface RowReader<T> {
    T read(ResultSet rs) throws SQLException;
  }

  /**
   * Runs a statement without parameters whose answer is one row (a probe, a setting, a position),
   * and reads that row.
   */
  <T> T readRow(String statement, Supplier<String> what, RowReader<T> reader) {
    return execute(
        statement,
        what,
        ps -> {},
        (rs, opened) -> {
          if (!rs.next()) {
            throw new SQLException("the statement returned no row");
          }
          return reader.read(rs);
        });
  }

  /** Binds a lease key as two parameters, account then session, from {@code first} on. */
  static void bindKey(PreparedStatement ps, int first, LeaseKey key) throws SQLException {
    ps.setString(first, key.accountId());
    ps.setString(first + 1, key.sessionId());
  }

  /** What to do about a failed statement, when the failure says. */
  private String repair(SQLException e) {
    if (UNDEFINED_TABLE.equals(e.getSQLState())) {
      return "; the lease schema is missing from this database: apply it first with "
          + schema.describeApply()
          + ", or run LeaseSchema.sqlScript()";
    }
    if (noAnswer(e)) {
      return "; no answer from the database within "
          + answerBoundMillis
          + " ms (twice the statement timeout of "
          + statementTimeoutMillis
          + " ms, plus 1 s): the server process, or on Citus a worker, is stopped or hung, or the"
          + " network dropped; the connection was closed, and whether the statement committed is"
          + " unknown. Find the process in pg_stat_activity (and on Citus the worker's) and check"
          + " the server and the network";
    }
    return "";
  }

  /**
   * Whether a failure was the client's bound on the answer: the socket's read timed out. The driver
   * may chain that read as the next exception of an error the server sent first (a Citus
   * coordinator reports its statement timeout, {@code 57014}, then waits for a stopped worker and
   * never sends the end of the answer), so the chain of next exceptions is searched too.
   */
  static boolean noAnswer(SQLException e) {
    for (SQLException next = e; next != null; next = next.getNextException()) {
      for (Throwable t = next; t != null; t = t.getCause()) {
        if (t instanceof java.net.SocketTimeoutException) {
          return true;
        }
      }
    }
    return false;
  }

  /**
   * Whether an earlier statement found one PostgreSQL, not a Citus coordinator. False until the
   * first statement has asked ({@link #onCitus}), so a text that only one PostgreSQL accepts is
   * never sent before that is known.
   */
  boolean knownPlain() {
    return Boolean.FALSE.equals(citus);
  }

  /** Whether the database is a Citus coordinator, asked on the first statement only. */
  boolean onCitus(Connection c) throws SQLException {
    Boolean known = citus;
    if (known == null) {
      try (Statement s = c.createStatement();
          ResultSet rs = s.executeQuery(StatementSettings.ON_CITUS)) {
        rs.next();
        known = rs.getBoolean(1);
      }
      citus = known;
    }
    return known;
  }

  /**
   * Runs a statement on an auto-commit connection in a transaction block of its own: committed if
   * it and its reading succeed, rolled back otherwise, and auto-commit on again either way. If the
   * rollback fails too, the connection is aborted (a pool then discards it) rather than handed back
   * inside a transaction. The commit or rollback waits only for what is left of the call's {@link
   * #answerBound} (counted from {@code started}), so the call's round trips share one bound instead
   * of each having its own.
   */
  private <T> T inTransactionBlock(
      Connection c,
      String statement,
      Supplier<String> what,
      Binder binder,
      Reader<T> reader,
      long started)
      throws SQLException {
    c.setAutoCommit(false);
    T answer;
    try {
      answer = run(c, statement, what, binder, reader);
      boundTheRest(c, started);
      c.commit();
    } catch (Throwable failure) {
      FailedTransaction.rollBackOrAbort(
          c,
          failure,
          () -> {
            boundTheRest(c, started);
            c.rollback();
            c.setAutoCommit(true);
          });
      throw failure;
    }
    c.setAutoCommit(true);
    return answer;
  }

  /**
   * Sets the network timeout to what is left of the call's bound (at least 1 ms), for the round
   * trip that ends its transaction block.
   */
  private void boundTheRest(Connection c, long started) throws SQLException {
    long left = answerBoundMillis - (System.nanoTime() - started) / 1_000_000;
    c.setNetworkTimeout(Runnable::run, (int) Math.max(1, left));
  }

  /** Runs a statement and reads its answer, its last result set. */
  private static <T> T run(
      Connection c, String statement, Supplier<String> what, Binder binder, Reader<T> reader)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(statement)) {
      binder.bind(ps, c);
      boolean isResultSet = ps.execute();
      // With an opening, its row comes first. It stays open (closing the statement closes
      // it), and its time is parsed only if the reader asks for it.
      ResultSet previous = null;
      while (true) {
        if (isResultSet) {
          if (previous != null && previous != ps.getResultSet()) {
            return readWithOpening(ps.getResultSet(), previous, reader);
          }
          previous = ps.getResultSet();
        } else if (ps.getUpdateCount() == -1) {
          if (previous == null) {
            throw new IllegalStateException("statement returned no result set: " + what.get());
          }
          try (ResultSet rs = previous) {
            return reader.read(rs, NO_OPENING);
          }
        }
        isResultSet = ps.getMoreResults(Statement.KEEP_CURRENT_RESULT);
      }
    }
  }

  private static <T> T readWithOpening(ResultSet answer, ResultSet opening, Reader<T> reader)
      throws SQLException {
    try (answer) {
      return reader.read(answer, new OpeningRow(opening));
    }
  }

  /** Sends the session settings on a connection that has not had them yet. */
  private void setSessionTimeouts(Connection c) throws SQLException {
    Object driverConnection = c.isWrapperFor(Connection.class) ? c.unwrap(Connection.class) : c;
    if (prepared.containsKey(driverConnection)) {
      return;
    }
    try (Statement s = c.createStatement()) {
      s.execute(sessionTimeouts);
    }
    prepared.put(driverConnection, Boolean.TRUE);
  }

  /** Whether a store failure was a lock wait that reached the lock timeout. */
  static boolean isLockTimeout(LeaseStoreException e) {
    return e.getCause() instanceof SQLException s && LOCK_NOT_AVAILABLE.equals(s.getSQLState());
  }

  static long micros(Duration d) {
    return d.toNanos() / 1_000;
  }

  /**
   * A {@code timestamptz} column. Once the driver has prepared a statement on the server it
   * receives these columns in binary: eight bytes, microseconds since 2000-01-01 UTC, read here
   * directly. The driver's own conversion builds calendars for each value, which the benchmarks
   * measured at about a tenth of a cycle's client CPU (docs/performance.md). Text (a statement's
   * first executions), infinite values and other drivers go through the driver.
   */
  static Instant instant(ResultSet rs, int column) throws SQLException {
    if (isBinary(rs, column)) {
      byte[] b = rs.getBytes(column);
      if (b != null && b.length == Long.BYTES) {
        long micros = 0;
        for (byte x : b) {
          micros = (micros << 8) | (x & 0xFF);
        }
        if (micros != Long.MAX_VALUE && micros != Long.MIN_VALUE) {
          return POSTGRES_EPOCH.plus(micros, ChronoUnit.MICROS);
        }
      }
    }
    return rs.getObject(column, OffsetDateTime.class).toInstant();
  }

  /** Where PostgreSQL counts its binary timestamps from. */
  private static final Instant POSTGRES_EPOCH = Instant.parse("2000-01-01T00:00:00Z");

  /** Whether the PostgreSQL driver received {@code column} in binary. */
  private static boolean isBinary(ResultSet rs, int column) throws SQLException {
    java.sql.ResultSetMetaData meta = rs.getMetaData();
    return meta.isWrapperFor(PGResultSetMetaData.class)
        && meta.unwrap(PGResultSetMetaData.class).getFormat(column) == 1;
  }

  /** A timestamp column that may be null (a row never released). */
  static Instant instantOrNull(ResultSet rs, int column) throws SQLException {
    return rs.getBytes(column) == null ? null : instant(rs, column);
  }

  static Array array(Connection c, String type, Object[] values) throws SQLException {
    return c.createArrayOf(type, values);
  }
}
