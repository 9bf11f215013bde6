package io.leasehold.benchmarks;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.leasehold.devdb.LocalPostgres;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** The one PostgreSQL instance every benchmark runs on: embedded by default, or external. */
final class BenchDatabase implements AutoCloseable {
  private final LocalPostgres embedded;
  final String url;
  final String user;
  final String password;
  final int port;
  private final List<AutoCloseable> opened = new ArrayList<>();

  BenchDatabase(Optional<String> jdbcUrl) {
    if (jdbcUrl.isPresent()) {
      embedded = null;
      url = jdbcUrl.get();
      user = System.getenv().getOrDefault("LEASEHOLD_TEST_JDBC_USER", "postgres");
      password = System.getenv().getOrDefault("LEASEHOLD_TEST_JDBC_PASSWORD", "");
      port = -1;
    } else {
      // One instance serves every competitor; its settings are printed with the results.
      // Durable commits (fsync, synchronous_commit on), as users run PostgreSQL: turned off,
      // they hide the commit cost that is most of a lease's cost.
      embedded = LocalPostgres.start();
      port = embedded.port();
      url = embedded.jdbcUrl();
      user = embedded.user();
      password = embedded.password();
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

  /**
   * Closes every pool and connection opened so far (between benchmarks, to free connections).
   *
   * @throws IllegalStateException if one could not be closed (after trying all of them)
   */
  void closeOpened() {
    IllegalStateException failed = null;
    synchronized (opened) {
      for (AutoCloseable c : opened) {
        try {
          c.close();
        } catch (Exception e) {
          if (failed == null) {
            failed = new IllegalStateException("could not close a benchmark connection or pool", e);
          } else {
            failed.addSuppressed(e);
          }
        }
      }
      opened.clear();
    }
    if (failed != null) {
      throw failed;
    }
  }

  @Override
  public void close() {
    closeOpened();
    if (embedded != null) {
      embedded.close();
    }
  }
}
