package io.leasehold.devdb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LocalPostgresTest {
  private static String query(LocalPostgres pg, String sql) throws SQLException {
    try (Connection c = pg.dataSource().getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getString(1);
    }
  }

  @Test
  void startsPostgres17WithDurableCommitsAndCleansUp() throws Exception {
    Path data;
    try (LocalPostgres pg = LocalPostgres.start()) {
      assertThat(Integer.parseInt(query(pg, "SHOW server_version_num"))).isBetween(170000, 179999);
      assertThat(query(pg, "SHOW fsync")).isEqualTo("on");
      assertThat(query(pg, "SHOW synchronous_commit")).isEqualTo("on");
      assertThat(query(pg, "SHOW max_connections")).isEqualTo("300");
      data = Path.of(query(pg, "SHOW data_directory"));
      assertThat(data).exists();
    }
    assertThat(data).doesNotExist();
  }

  @Test
  void restartKeepsDataAndPortAndDropsConnections(@TempDir Path dir) throws Exception {
    try (LocalPostgres pg =
        LocalPostgres.builder().durable(false).dataDirectory(dir.resolve("pg")).start()) {
      assertThat(query(pg, "SHOW fsync")).isEqualTo("off");
      int port = pg.port();
      Connection before = pg.dataSource().getConnection();
      try (Statement s = before.createStatement()) {
        s.execute("CREATE TABLE kept (v int); INSERT INTO kept VALUES (42)");
      }
      pg.restart();
      assertThat(pg.port()).isEqualTo(port);
      assertThat(query(pg, "SELECT v FROM kept")).isEqualTo("42");
      assertThatThrownBy(() -> before.createStatement().execute("SELECT 1"))
          .isInstanceOf(SQLException.class);
      before.close();
    }
    assertThat(dir.resolve("pg")).as("a given data directory is kept").exists();
    assertThat(Files.list(dir.resolve("pg")).findAny()).isPresent();
  }

  @Test
  void badOptionsAreRefused() {
    assertThatThrownBy(() -> LocalPostgres.builder().port(80))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> LocalPostgres.builder().setting("fsync; DROP", "on"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> LocalPostgres.builder().setting("work_mem", null))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> LocalPostgres.builder().dataDirectory(null))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
