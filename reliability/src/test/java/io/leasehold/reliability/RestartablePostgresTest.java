package io.leasehold.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.Test;

/** The restart fault is a real restart: connections drop, data survives, the port stays. */
class RestartablePostgresTest {
  @Test
  void restartDropsConnectionsAndKeepsData() throws Exception {
    try (RestartablePostgres pg = new RestartablePostgres()) {
      Connection before = DriverManager.getConnection(pg.jdbcUrl(), "postgres", "postgres");
      try (Statement s = before.createStatement()) {
        s.execute("CREATE TABLE kept (x int); INSERT INTO kept VALUES (42)");
      }
      pg.restart();
      assertThatThrownBy(() -> before.createStatement().executeQuery("SELECT 1"))
          .isInstanceOf(SQLException.class);
      try (Connection after = DriverManager.getConnection(pg.jdbcUrl(), "postgres", "postgres");
          Statement s = after.createStatement();
          ResultSet rs = s.executeQuery("SELECT x FROM kept")) {
        assertThat(rs.next()).isTrue();
        assertThat(rs.getInt(1)).isEqualTo(42);
      }
    }
  }
}
