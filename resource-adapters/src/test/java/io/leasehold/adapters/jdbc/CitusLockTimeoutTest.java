package io.leasehold.adapters.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.leasehold.testing.CitusCoordinator;
import io.leasehold.testing.PostgresServer;
import io.leasehold.testing.TestDatabaseExtension;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * CONTRACT C21 in the form the database writer's transactions take on a Citus coordinator (the lock
 * timeout sent first as {@code SET LOCAL}, which Citus passes to the workers), proven on plain
 * PostgreSQL in CI: the timeout holds in the transaction and ends with it, and a wait behind a
 * peer's row lock ends with it. On plain PostgreSQL the writer finds no Citus and sends nothing
 * more.
 */
@Timeout(60)
class CitusLockTimeoutTest {
  @RegisterExtension static final TestDatabaseExtension db = JdbcTestSchema.extension();

  private static final Duration LOCK = Duration.ofMillis(300);

  private static JdbcTransactions transactions(Boolean citus) {
    return new JdbcTransactions(db.dataSource(), "public.leasehold_high_water", LOCK, citus);
  }

  @Test
  void aWriterFindsCitusOnlyWhereTheExtensionIs() throws SQLException {
    boolean onCoordinator =
        CitusCoordinator.KIND.equals(System.getProperty(PostgresServer.KIND_PROPERTY));
    try (Connection c = db.dataSource().getConnection()) {
      assertThat(transactions(null).onCitus(c)).isEqualTo(onCoordinator);
    }
  }

  @Test
  void theTimeoutHoldsInTheTransactionAndEndsWithIt() throws SQLException {
    String inside =
        transactions(true)
            .run(
                c -> {
                  String shown = lockTimeout(c);
                  c.commit();
                  return shown;
                });
    assertThat(inside).isEqualTo("300ms");
    try (Connection c = db.dataSource().getConnection()) {
      assertThat(lockTimeout(c)).isEqualTo("0");
    }
  }

  @Test
  void aWaitBehindAPeersRowLockEndsWithTheLockTimeout() throws SQLException {
    try (Connection holder = db.database().newConnection()) {
      holder.setAutoCommit(false);
      try (Statement st = holder.createStatement()) {
        st.execute(
            "INSERT INTO leasehold_high_water (account_id, session_id, fence, run_id, admitted_at)"
                + " VALUES ('acct', 'citus-form', 1, gen_random_uuid(), now())");
      }
      holder.commit();
      try (Statement st = holder.createStatement()) {
        st.executeQuery(
                "SELECT 1 FROM leasehold_high_water WHERE account_id = 'acct'"
                    + " AND session_id = 'citus-form' FOR UPDATE")
            .close();
      }
      long start = System.nanoTime();
      assertThatThrownBy(
              () ->
                  transactions(true)
                      .run(
                          c -> {
                            try (Statement st = c.createStatement()) {
                              st.executeUpdate(
                                  "UPDATE leasehold_high_water SET fence = 2"
                                      + " WHERE account_id = 'acct' AND session_id = 'citus-form'");
                            }
                            c.commit();
                            return null;
                          }))
          .isInstanceOfSatisfying(
              SQLException.class, e -> assertThat(e.getSQLState()).isEqualTo("55P03"));
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
      holder.rollback();
    }
  }

  private static String lockTimeout(Connection c) throws SQLException {
    try (Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT current_setting('lock_timeout')")) {
      rs.next();
      return rs.getString(1);
    }
  }
}
