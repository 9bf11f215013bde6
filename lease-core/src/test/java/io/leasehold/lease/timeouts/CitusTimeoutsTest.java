package io.leasehold.lease.timeouts;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import io.leasehold.lease.LeaseStoreException;
import io.leasehold.lease.StoreInternals;
import io.leasehold.testing.CitusCoordinator;
import io.leasehold.testing.PostgresServer;
import io.leasehold.testing.TestDatabaseExtension;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * CONTRACT C5 and C18 in the form a store sends its statements in on a Citus coordinator (each in a
 * transaction block behind {@code SET LOCAL} timeouts that Citus passes to the workers), proven on
 * plain PostgreSQL in CI: the timeouts hold for the statement and end with it, a row lock wait ends
 * with the lock timeout, and the connection goes back to the pool outside any transaction. On plain
 * PostgreSQL a store finds no Citus and keeps its pipelined opening.
 */
@Timeout(60)
class CitusTimeoutsTest {
  @RegisterExtension static final TestDatabaseExtension db = TestDatabaseExtension.empty();

  private static final Duration LOCK = Duration.ofMillis(300);
  private static final Duration STATEMENT = Duration.ofMillis(5_000);

  @BeforeAll
  static void table() throws SQLException {
    try (Connection c = db.database().newConnection();
        Statement s = c.createStatement()) {
      s.execute("CREATE TABLE citus_form (k text PRIMARY KEY, v int NOT NULL)");
      s.execute("INSERT INTO citus_form VALUES ('locked', 0)");
    }
  }

  @Test
  void aStoreFindsCitusOnlyWhereTheExtensionIs() throws SQLException {
    boolean onCoordinator =
        CitusCoordinator.KIND.equals(System.getProperty(PostgresServer.KIND_PROPERTY));
    assertThat(StoreInternals.onCitus(db.dataSource())).isEqualTo(onCoordinator);
  }

  @Test
  void theTimeoutsHoldForTheStatementAndEndWithItsTransaction() throws SQLException {
    try (HikariDataSource pool = db.database().newPool(1)) {
      assertThat(
              run(
                  pool,
                  "SELECT current_setting('lock_timeout') || ' ' || current_setting('statement_timeout')"))
          .isEqualTo("300ms 5s");
      assertBackOutsideATransaction(pool);
    }
  }

  @Test
  void aStatementIsCommitted() throws SQLException {
    try (HikariDataSource pool = db.database().newPool(1)) {
      assertThat(run(pool, "INSERT INTO citus_form VALUES ('committed', 1) RETURNING k"))
          .isEqualTo("committed");
      try (Connection other = db.database().newConnection();
          Statement s = other.createStatement();
          ResultSet rs = s.executeQuery("SELECT v FROM citus_form WHERE k = 'committed'")) {
        assertThat(rs.next()).isTrue();
        assertThat(rs.getInt(1)).isEqualTo(1);
      }
    }
  }

  @Test
  void aRowLockWaitEndsWithTheLockTimeoutAndIsRolledBack() throws Exception {
    try (HikariDataSource pool = db.database().newPool(1);
        Connection holder = db.database().newConnection()) {
      holder.setAutoCommit(false);
      try (Statement s = holder.createStatement()) {
        s.execute("UPDATE citus_form SET v = v + 1 WHERE k = 'locked'");
      }
      long start = System.nanoTime();
      assertThatThrownBy(
              () -> run(pool, "UPDATE citus_form SET v = v + 10 WHERE k = 'locked' RETURNING v"))
          .isInstanceOfSatisfying(
              LeaseStoreException.class,
              e ->
                  assertThat(((SQLException) e.getCause()).getSQLState())
                      .as("lock timeout, not the statement timeout")
                      .isEqualTo("55P03"));
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(STATEMENT);
      holder.rollback();
      assertBackOutsideATransaction(pool);
      try (Connection c = pool.getConnection();
          Statement s = c.createStatement();
          ResultSet rs = s.executeQuery("SELECT v FROM citus_form WHERE k = 'locked'")) {
        rs.next();
        assertThat(rs.getInt(1)).isZero();
      }
    }
  }

  /**
   * Runs {@code sql} as a store on Citus runs its statements, under {@link #LOCK} and {@link
   * #STATEMENT}.
   */
  private static String run(HikariDataSource pool, String sql) {
    return StoreInternals.runAsOnCitus(pool, LOCK, STATEMENT, sql);
  }

  /**
   * The pool's connection is in auto-commit with the session's own timeouts: a transaction left
   * open would still show the statement's {@code SET LOCAL} values.
   */
  private static void assertBackOutsideATransaction(HikariDataSource pool) throws SQLException {
    try (Connection c = pool.getConnection();
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT current_setting('lock_timeout'), current_setting('statement_timeout')")) {
      assertThat(c.getAutoCommit()).isTrue();
      rs.next();
      assertThat(rs.getString(1)).isEqualTo("0");
      assertThat(rs.getString(2)).isEqualTo("0");
    }
  }
}
