package io.leasehold.benchmarks;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** The one PostgreSQL instance every benchmark runs on: embedded by default, or external. */
final class BenchDatabase implements AutoCloseable {
  private final EmbeddedPostgres embedded;
  final String url;
  final String user;
  final String password;
  final int port;
  private final List<AutoCloseable> opened = new ArrayList<>();

  BenchDatabase(Optional<String> jdbcUrl) {
    try {
      if (jdbcUrl.isPresent()) {
        embedded = null;
        url = jdbcUrl.get();
        user = System.getenv().getOrDefault("LEASEHOLD_TEST_JDBC_USER", "postgres");
        password = System.getenv().getOrDefault("LEASEHOLD_TEST_JDBC_PASSWORD", "");
        port = -1;
      } else {
        // One instance serves every competitor; its settings are printed with the results. The
        // embedded server's own defaults turn fsync and synchronous_commit off, which hides the
        // commit cost users pay: turned back on, as users run PostgreSQL.
        embedded =
            EmbeddedPostgres.builder()
                .setServerConfig("max_connections", "300")
                .setServerConfig("fsync", "on")
                .setServerConfig("synchronous_commit", "on")
                .setServerConfig("full_page_writes", "on")
                .start();
        port = embedded.getPort();
        url = "jdbc:postgresql://localhost:" + port + "/postgres";
        user = "postgres";
        password = "postgres";
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  Connection connection() throws SQLException {
    Connection c = DriverManager.getConnection(url, user, password);
    synchronized (opened) {
      opened.add(c);
    }
    return c;
  }

  HikariDataSource pool(int size) {
    HikariConfig c = new HikariConfig();
    c.setJdbcUrl(url);
    c.setUsername(user);
    c.setPassword(password);
    c.setMaximumPoolSize(size);
    c.setMinimumIdle(size);
    HikariDataSource ds = new HikariDataSource(c);
    synchronized (opened) {
      opened.add(ds);
    }
    return ds;
  }

  /** Closes every pool and connection opened so far (between benchmarks, to free connections). */
  void closeOpened() {
    synchronized (opened) {
      for (AutoCloseable c : opened) {
        try {
          c.close();
        } catch (Exception e) {
          // closing between benchmarks
        }
      }
      opened.clear();
    }
  }

  @Override
  public void close() {
    closeOpened();
    if (embedded != null) {
      try {
        embedded.close();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }
}
