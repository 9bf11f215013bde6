package io.leasehold.examples.demo;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.leasehold.devdb.LocalPostgres;

/**
 * The demo's PostgreSQL: embedded (started here, stopped on close) or external.
 *
 * @param embedded the embedded server, or null for an external database
 * @param jdbcUrl the JDBC URL
 * @param user the user
 * @param password the password
 */
public record DemoDatabase(LocalPostgres embedded, String jdbcUrl, String user, String password)
    implements AutoCloseable {
  /**
   * Starts the embedded server, or names the external one of the options.
   *
   * @param options the demo options
   * @return the database; close it to stop an embedded server
   */
  public static DemoDatabase start(DemoOptions options) {
    return start(options, true);
  }

  /**
   * Starts the embedded server, or names the external one of the options.
   *
   * @param options the demo options
   * @param stopAtJvmExit false if the caller closes this database in a shutdown hook of its own,
   *     after its clients (see {@link LocalPostgres.Builder#stopAtJvmExit})
   * @return the database; close it to stop an embedded server
   */
  public static DemoDatabase start(DemoOptions options, boolean stopAtJvmExit) {
    if (options.jdbcUrl().isPresent()) {
      return new DemoDatabase(null, options.jdbcUrl().get(), options.user(), options.password());
    }
    LocalPostgres pg = LocalPostgres.builder().stopAtJvmExit(stopAtJvmExit).start();
    return new DemoDatabase(pg, pg.jdbcUrl(), pg.user(), pg.password());
  }

  /**
   * What the database is, for the output.
   *
   * @return a description
   */
  public String describe() {
    return embedded != null ? "embedded PostgreSQL on port " + embedded.port() : jdbcUrl;
  }

  /**
   * A new connection pool on the database.
   *
   * @param name the pool's name
   * @param size its maximum size
   * @return the pool; the caller closes it
   */
  public HikariDataSource pool(String name, int size) {
    HikariConfig c = new HikariConfig();
    c.setJdbcUrl(jdbcUrl);
    c.setUsername(user);
    c.setPassword(password);
    c.setMaximumPoolSize(size);
    c.setMinimumIdle(0);
    c.setPoolName(name);
    return new HikariDataSource(c);
  }

  /** The description, never the password. */
  @Override
  public String toString() {
    return describe();
  }

  @Override
  public void close() {
    if (embedded != null) {
      embedded.close();
    }
  }
}
