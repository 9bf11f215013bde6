package io.leasehold.adapters.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import io.leasehold.adapters.ResourceAccessException;
import io.leasehold.fencing.Fenced;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.StaleFenceException;
import io.leasehold.fencing.TokenVerifier;
import io.leasehold.lease.AcquireResult;
import io.leasehold.lease.Lease;
import io.leasehold.lease.LeaseStore;
import io.leasehold.testing.Sql;
import io.leasehold.testing.TestDatabaseExtension;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.sql.Statement;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue 13 (CONTRACT C16): when the work threw an Error or a sneaky checked exception, the
 * admit-at-commit mode committed a stale writer's row, and strict mode committed a forged
 * Long.MAX_VALUE mark: only SQLException and RuntimeException were caught, and restoring
 * auto-commit in {@code finally} committed the open transaction. Work that commits by itself would
 * commit without the admission. Every case, in both admission modes: nothing the work did is kept
 * and the mark is unchanged.
 *
 * <p>Issue 47's red team: work that hides its failure (it catches an SQL error and returns, a
 * deferred constraint fails at the COMMIT, it kills its own backend) keeps nothing either, and is
 * never reported as written. The swallowed SQL error was: PostgreSQL answers an aborted
 * transaction's COMMIT with a rollback, and the admit-first writer returned the work's result.
 */
class ThrownErrorsNeverCommitTest {
  @RegisterExtension static final TestDatabaseExtension db = JdbcTestSchema.extension();
  private static final AtomicInteger KEYS = new AtomicInteger();
  private static final String SWALLOWED = "swallowed an SQL error";

  /** One connection, so a connection handed back dirty would fail the next write. */
  private static HikariDataSource onePool;

  @BeforeAll
  static void setUp() {
    db.database()
        .execute(
            "CREATE TABLE deferred_unique (v int, CONSTRAINT deferred_unique_v UNIQUE (v)"
                + " DEFERRABLE INITIALLY DEFERRED)");
    onePool = db.database().newPool(1);
  }

  @AfterAll
  static void tearDown() {
    onePool.close();
  }

  /** Work that writes the register, then fails as the case says. */
  interface Failure {
    void fail(Connection c) throws Exception;
  }

  static Stream<Arguments> failures() {
    Failure assertionError =
        c -> {
          throw new AssertionError("work asserted");
        };
    Failure stackOverflow = c -> recurse(0);
    Failure sneakyChecked = c -> sneakyThrow(new Exception("checked, thrown sneakily"));
    Failure commitsItself = Connection::commit;
    Failure autoCommitOn = c -> c.setAutoCommit(true);
    Failure rollsBackAndWritesAgain =
        c -> {
          c.rollback();
          insert(c, "after rollback");
        };
    return inBothModes(
        "AssertionError", assertionError,
        "StackOverflowError", stackOverflow,
        "sneaky checked exception", sneakyChecked,
        "work calls commit()", commitsItself,
        "work turns auto-commit on", autoCommitOn,
        "work rolls back and writes again", rollsBackAndWritesAgain);
  }

  /** Each case, given as a name and its failure, once in each admission mode. */
  private static Stream<Arguments> inBothModes(Object... namesAndFailures) {
    Stream.Builder<Arguments> out = Stream.builder();
    for (boolean atCommit : new boolean[] {false, true}) {
      for (int i = 0; i < namesAndFailures.length; i += 2) {
        out.add(Arguments.of(namesAndFailures[i], atCommit, namesAndFailures[i + 1]));
      }
    }
    return out.build();
  }

  @ParameterizedTest(name = "{0}, admit at commit: {1}")
  @MethodSource("failures")
  void aStaleWriterWhoseWorkFailsKeepsNothing(String name, boolean atCommit, Failure failure)
      throws Exception {
    LeaseKey key = LeaseKey.of("acct", "thrown-" + KEYS.incrementAndGet());
    FencedJdbcWriter writer = JdbcTestSchema.trustingWriter(db.dataSource(), atCommit).build();
    RegisterHarness register = new RegisterHarness(db.dataSource());
    register.write(key, new FencingToken(key, 10, UUID.randomUUID()), "ten");

    // A stale writer (fence 9) and a forged one (Long.MAX_VALUE): neither may leave anything.
    for (long fence : new long[] {9, Long.MAX_VALUE}) {
      FencingToken token = new FencingToken(key, fence, UUID.randomUUID());
      Throwable thrown =
          catchThrowable(
              () ->
                  writer.write(
                      token,
                      (c, t) -> {
                        RegisterHarness.setRegister(c, key, "written by fence " + fence);
                        try {
                          failure.fail(c);
                        } catch (SQLException | RuntimeException | Error e) {
                          throw e;
                        } catch (Exception e) {
                          ThrownErrorsNeverCommitTest.<RuntimeException>sneakyThrow(e);
                        }
                        return null;
                      }));
      assertThat(thrown).as("%s with fence %d", name, fence).isNotNull();
      if (fence == 9 && !atCommit) {
        // The admission comes first: the stale writer's work never ran.
        assertThat(thrown).isInstanceOf(StaleFenceException.class);
      }
      assertThat(register.value(key)).as("%s with fence %d", name, fence).contains("ten");
      assertThat(writer.highWaterMark(key)).as("%s with fence %d", name, fence).hasValue(10);
      assertThat(countRows("after rollback")).isZero();
    }
    // The connections went back to the pool clean: an honest writer still works.
    register.write(key, new FencingToken(key, 11, UUID.randomUUID()), "eleven");
    assertThat(register.value(key)).contains("eleven");
  }

  /**
   * A rollback that fails too: the connection is aborted (so the server ends the transaction and
   * the pool discards the connection), and the caller gets the work's own failure, with the
   * rollback's attached. Before, the failed rollback was tried again while restoring auto-commit,
   * and that second failure replaced the work's, reported as a fenced transaction "rolled back".
   */
  @org.junit.jupiter.api.Test
  void aFailedRollbackAbortsTheConnectionAndTheWorksFailureIsWhatFlies() throws Exception {
    LeaseKey key = LeaseKey.of("acct", "thrown-" + KEYS.incrementAndGet());
    java.util.List<Connection> aborted = new java.util.concurrent.CopyOnWriteArrayList<>();
    javax.sql.DataSource refusingRollback =
        (javax.sql.DataSource)
            java.lang.reflect.Proxy.newProxyInstance(
                getClass().getClassLoader(),
                new Class<?>[] {javax.sql.DataSource.class},
                (proxy, method, args) -> {
                  Object result = invoke(db.dataSource(), method, args);
                  return result instanceof Connection c ? refusingRollback(c, aborted) : result;
                });
    FencedJdbcWriter writer =
        FencedJdbcWriter.builder(refusingRollback)
            .verifier(TokenVerifier.trustEveryWriter())
            .build();
    AssertionError workFailure = new AssertionError("work asserted");
    Throwable thrown =
        catchThrowable(
            () ->
                writer.write(
                    new FencingToken(key, 5, UUID.randomUUID()),
                    (c, t) -> {
                      insert(c, "before a failed rollback");
                      throw workFailure;
                    }));
    assertThat(thrown).isSameAs(workFailure);
    assertThat(thrown.getSuppressed())
        .extracting(Throwable::getMessage)
        .contains("rollback refused");
    assertThat(aborted).hasSize(1);
    assertThat(countRows("before a failed rollback")).isZero();
    assertThat(writer.highWaterMark(key)).isEmpty();
  }

  /** Work that writes the register, then fails in a way it does not throw. */
  interface HiddenFailure {
    void fail(Connection c) throws SQLException;
  }

  static Stream<Arguments> hiddenFailures() {
    HiddenFailure swallowsAnSqlError = ThrownErrorsNeverCommitTest::divideByZeroAndSwallow;
    HiddenFailure failsAtCommit =
        c -> {
          try (Statement st = c.createStatement()) {
            st.execute("INSERT INTO deferred_unique VALUES (1), (1)");
          }
        };
    HiddenFailure killsItsOwnBackend =
        c -> {
          try (Statement st = c.createStatement()) {
            st.execute("SELECT pg_terminate_backend(pg_backend_pid())");
          }
        };
    return inBothModes(
        "swallowed SQL error", swallowsAnSqlError,
        "deferred constraint fails at COMMIT", failsAtCommit,
        "work kills its own backend", killsItsOwnBackend);
  }

  @ParameterizedTest(name = "{0}, admit at commit: {1}")
  @MethodSource("hiddenFailures")
  void anHonestWriterWhoseWorkFailsUnseenKeepsNothingAndIsNotAcknowledged(
      String name, boolean atCommit, HiddenFailure failure) throws Exception {
    LeaseKey key = LeaseKey.of("acct", "hidden-" + KEYS.incrementAndGet());
    FencedJdbcWriter writer = JdbcTestSchema.trustingWriter(onePool, atCommit).build();
    RegisterHarness register = new RegisterHarness(onePool, atCommit);
    register.write(key, new FencingToken(key, 10, UUID.randomUUID()), "ten");

    Throwable thrown =
        writeAndFail(writer, new FencingToken(key, 11, UUID.randomUUID()), "eleven", failure);
    // CONTRACT C10: a write that kept nothing is never acknowledged, so fence 11 raised no mark.
    assertThat(thrown).as(name).isInstanceOf(ResourceAccessException.class);
    if (name.startsWith("swallowed")) {
      assertThat(thrown).hasMessageContaining(SWALLOWED).hasMessageContaining("savepoint");
    }
    assertThat(register.value(key)).as(name).contains("ten");
    assertThat(writer.highWaterMark(key)).as(name).hasValue(10);
    assertThat(db.database().queryOne("SELECT count(*) FROM deferred_unique", Long.class)).isZero();

    // The pool's only connection (or its replacement) went back clean.
    assertThat(
            Sql.query(
                db.dataSource(),
                "SELECT pid FROM pg_stat_activity WHERE datname = current_database()"
                    + " AND state LIKE 'idle in transaction%'"))
        .as(name + ": no transaction left open")
        .isEmpty();
    try (Connection c = onePool.getConnection()) {
      assertThat(c.getAutoCommit()).as(name).isTrue();
    }
    register.write(key, new FencingToken(key, 12, UUID.randomUUID()), "twelve");
    assertThat(register.value(key)).contains("twelve");
  }

  /**
   * Strict mode checks the live lease after the work: that statement failed, now the check does.
   */
  @ParameterizedTest(name = "admit at commit: {0}")
  @ValueSource(booleans = {false, true})
  void strictModeReportsASwallowedErrorAsSuch(boolean atCommit) throws Exception {
    LeaseKey key = LeaseKey.of("acct", "strict-swallowed-" + KEYS.incrementAndGet());
    try (LeaseStore store = JdbcTestSchema.leaseStore(db.dataSource())) {
      Lease lease = ((AcquireResult.Acquired) store.tryAcquire(key, "owner")).lease();
      FencedJdbcWriter strict =
          JdbcTestSchema.trustingWriter(db.dataSource(), atCommit)
              .strictLeaseTable("leasehold_lease")
              .build();
      Throwable thrown =
          writeAndFail(
              strict, lease, "strict", ThrownErrorsNeverCommitTest::divideByZeroAndSwallow);
      assertThat(thrown)
          .isInstanceOf(ResourceAccessException.class)
          .hasMessageContaining(SWALLOWED);
      assertThat(new RegisterHarness(db.dataSource()).value(key)).isEmpty();
      assertThat(strict.highWaterMark(key)).isEmpty();
    }
  }

  /**
   * Behind a connection wrapper that does not hand out pgjdbc's connection, the writer cannot read
   * the transaction's state locally and asks the server with one statement: refused all the same.
   */
  @ParameterizedTest(name = "admit at commit: {0}")
  @ValueSource(booleans = {false, true})
  void aWrapperHidingTheDriverStillRefusesASwallowedError(boolean atCommit) throws Exception {
    LeaseKey key = LeaseKey.of("acct", "hidden-driver-" + KEYS.incrementAndGet());
    DataSource hiding =
        (DataSource)
            java.lang.reflect.Proxy.newProxyInstance(
                getClass().getClassLoader(),
                new Class<?>[] {DataSource.class},
                (proxy, method, args) -> {
                  Object result = invoke(db.dataSource(), method, args);
                  return result instanceof Connection c ? hidingTheDriver(c) : result;
                });
    FencedJdbcWriter writer = JdbcTestSchema.trustingWriter(hiding, atCommit).build();
    Throwable thrown =
        writeAndFail(
            writer,
            new FencingToken(key, 3, UUID.randomUUID()),
            "three",
            ThrownErrorsNeverCommitTest::divideByZeroAndSwallow);
    assertThat(thrown).isInstanceOf(ResourceAccessException.class).hasMessageContaining(SWALLOWED);
    assertThat(new RegisterHarness(db.dataSource()).value(key)).isEmpty();
    assertThat(writer.highWaterMark(key)).isEmpty();
    // The same wrapper on the success path: the statement finds the transaction healthy.
    writer.write(
        new FencingToken(key, 4, UUID.randomUUID()),
        (c, t) -> {
          RegisterHarness.setRegister(c, key, "four");
          return null;
        });
    assertThat(new RegisterHarness(db.dataSource()).value(key)).contains("four");
  }

  /** The repair the error names: an error caught inside a savepoint, rolled back to, commits. */
  @ParameterizedTest(name = "admit at commit: {0}")
  @ValueSource(booleans = {false, true})
  void anErrorCaughtInsideASavepointCommitsTheRest(boolean atCommit) throws Exception {
    LeaseKey key = LeaseKey.of("acct", "savepoint-" + KEYS.incrementAndGet());
    FencedJdbcWriter writer = JdbcTestSchema.trustingWriter(db.dataSource(), atCommit).build();
    String result =
        writer.write(
            new FencingToken(key, 7, UUID.randomUUID()),
            (c, t) -> {
              RegisterHarness.setRegister(c, key, "seven");
              Savepoint beforeRisk = c.setSavepoint();
              try (Statement st = c.createStatement()) {
                st.execute("SELECT 1 / 0");
              } catch (SQLException expected) {
                c.rollback(beforeRisk);
                return "recovered: " + expected.getSQLState();
              }
              return "no error";
            });
    assertThat(result).isEqualTo("recovered: 22012");
    assertThat(new RegisterHarness(db.dataSource()).value(key)).contains("seven");
    assertThat(writer.highWaterMark(key)).hasValue(7);
  }

  /** The real connection, minus unwrap: as some pools and tracing wrappers hand it out. */
  private static Connection hidingTheDriver(Connection real) {
    return (Connection)
        java.lang.reflect.Proxy.newProxyInstance(
            ThrownErrorsNeverCommitTest.class.getClassLoader(),
            new Class<?>[] {Connection.class},
            (proxy, method, args) ->
                switch (method.getName()) {
                  case "isWrapperFor" -> false;
                  case "unwrap" -> throw new SQLException("not a wrapper");
                  default -> invoke(real, method, args);
                });
  }

  /** Writes {@code value} to the fenced key's register, then fails as given; returns what flew. */
  private static Throwable writeAndFail(
      FencedJdbcWriter writer, Fenced fenced, String value, HiddenFailure failure) {
    return catchThrowable(
        () ->
            writer.write(
                fenced,
                (c, t) -> {
                  RegisterHarness.setRegister(c, t.key(), value);
                  failure.fail(c);
                  return "reported success";
                }));
  }

  /** The work's statement fails, and the work hides it. */
  private static void divideByZeroAndSwallow(Connection c) {
    try (Statement st = c.createStatement()) {
      st.execute("SELECT 1 / 0");
    } catch (SQLException hidden) {
      assertThat(hidden.getSQLState()).isEqualTo("22012"); // the failure this test means
    }
  }

  private static Connection refusingRollback(Connection real, java.util.List<Connection> aborted) {
    return (Connection)
        java.lang.reflect.Proxy.newProxyInstance(
            ThrownErrorsNeverCommitTest.class.getClassLoader(),
            new Class<?>[] {Connection.class},
            (proxy, method, args) -> {
              if (method.getName().equals("rollback") && (args == null || args.length == 0)) {
                throw new SQLException("rollback refused");
              }
              if (method.getName().equals("abort")) {
                aborted.add(real);
              }
              return invoke(real, method, args);
            });
  }

  private static Object invoke(Object target, java.lang.reflect.Method method, Object[] args)
      throws Throwable {
    try {
      return method.invoke(target, args);
    } catch (java.lang.reflect.InvocationTargetException e) {
      throw e.getCause();
    }
  }

  private static Throwable catchThrowable(Runnable r) {
    try {
      r.run();
      return null;
    } catch (Throwable t) {
      return t;
    }
  }

  private static void insert(Connection c, String value) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("INSERT INTO register VALUES ('x', ?, ?)")) {
      ps.setString(1, UUID.randomUUID().toString());
      ps.setString(2, value);
      ps.executeUpdate();
    }
  }

  private static long countRows(String value) {
    return db.database()
        .queryOne("SELECT count(*) FROM register WHERE value = '" + value + "'", Long.class);
  }

  private static int recurse(int depth) {
    return recurse(depth + 1) + 1;
  }

  @SuppressWarnings("unchecked")
  private static <E extends Throwable> void sneakyThrow(Throwable e) throws E {
    throw (E) e;
  }
}
