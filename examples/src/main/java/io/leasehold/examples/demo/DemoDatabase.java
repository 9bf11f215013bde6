package io.leasehold.examples.demo;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;

/** The demo's PostgreSQL: embedded (started here, stopped on close) or external. */
final class DemoDatabase implements AutoCloseable {
  private final EmbeddedPostgres embedded;
  private final String jdbcUrl;
  private final String user;
  private final String password;

  private DemoDatabase(EmbeddedPostgres embedded, String jdbcUrl, String user, String password) {
    this.embedded = embedded;
    this.jdbcUrl = jdbcUrl;
    this.user = user;
    this.password = password;
  }

  static DemoDatabase start(DemoOptions options) {
    if (options.jdbcUrl().isPresent()) {
      return new DemoDatabase(null, options.jdbcUrl().get(), options.user(), options.password());
    }
    try {
      EmbeddedPostgres pg = EmbeddedPostgres.builder().start();
      return new DemoDatabase(pg, "jdbc:postgresql://localhost:" + pg.getPort() + "/postgres", "postgres", "postgres");
    } catch (IOException e) {
      throw new UncheckedIOException("could not start the embedded PostgreSQL", e);
    }
  }

  String describe() {
    return embedded != null ? "embedded PostgreSQL on port " + embedded.getPort() : jdbcUrl;
  }

  String jdbcUrl() {
    return jdbcUrl;
  }

  String user() {
    return user;
  }

  String password() {
    return password;
  }

  HikariDataSource pool(String name, int size) {
    HikariConfig c = new HikariConfig();
    c.setJdbcUrl(jdbcUrl);
    c.setUsername(user);
    c.setPassword(password);
    c.setMaximumPoolSize(size);
    c.setMinimumIdle(0);
    c.setPoolName(name);
    return new HikariDataSource(c);
  }

  @Override
  public void close() {
    if (embedded != null) {
      try {
        embedded.close();
      } catch (IOException e) {
        System.err.println("could not stop the embedded PostgreSQL: " + e);
      }
    }
  }
}
