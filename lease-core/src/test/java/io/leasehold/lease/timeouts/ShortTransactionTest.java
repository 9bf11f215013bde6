package io.leasehold.lease.timeouts;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.leasehold.lease.StoreInternals;
import io.leasehold.testing.TestDatabaseExtension;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * CONTRACT C5: the pipelined short transaction really sets both timeouts for the statement it
 * wraps, they end with it, and a failure leaves no transaction open.
 */
class ShortTransactionTest {
  @RegisterExtension static final TestDatabaseExtension db = TestDatabaseExtension.empty();

  @Test
  void timeoutsApplyToTheWrappedStatement() throws SQLException {
    String sql =
        StoreInternals.shortTransaction(
            Duration.ofMillis(123),
            Duration.ofMillis(456),
            "SELECT current_setting('lock_timeout'), current_setting('statement_timeout')");
    try (Connection c = db.database().newConnection();
        PreparedStatement ps = c.prepareStatement(sql)) {
      // Results in order: the set_config row, the wrapped statement's row.
      boolean rs = ps.execute();
      int seen = 0;
      while (true) {
        if (rs && ++seen == 2) {
          break;
        }
        rs = ps.getMoreResults();
      }
      try (ResultSet r = ps.getResultSet()) {
        r.next();
        assertThat(r.getString(1)).isEqualTo("123ms");
        assertThat(r.getString(2)).isEqualTo("456ms");
      }
      // The local settings ended with the transaction: the session keeps its own.
      try (Statement s = c.createStatement();
          ResultSet r = s.executeQuery("SHOW statement_timeout")) {
        r.next();
        assertThat(r.getString(1)).isEqualTo("0");
      }
    }
  }

  @Test
  void statementTimeoutCancelsTheWrappedStatement() throws SQLException {
    String sql =
        StoreInternals.shortTransaction(
            Duration.ofMillis(50), Duration.ofMillis(100), "SELECT pg_sleep(5)");
    try (Connection c = db.database().newConnection()) {
      assertThatThrownBy(
              () -> {
                try (PreparedStatement ps = c.prepareStatement(sql)) {
                  ps.execute();
                }
              })
          .isInstanceOfSatisfying(
              SQLException.class, e -> assertThat(e.getSQLState()).isEqualTo("57014"));
      // The implicit transaction was rolled back at the Sync: the connection is usable at once.
      try (Statement s = c.createStatement();
          ResultSet r = s.executeQuery("SELECT 1")) {
        assertThat(r.next()).isTrue();
      }
    }
  }
}
