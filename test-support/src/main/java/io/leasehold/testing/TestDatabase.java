package io.leasehold.testing;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * One database of its own for a test class. Closing it closes its pool and drops the database.
 *
 * <p>Thread-safe.
 */
public final class TestDatabase implements AutoCloseable {
  private final PostgresServer server;
  private final String name;
  private final boolean dropOnClose;
  private HikariDataSource dataSource;

  TestDatabase(PostgresServer server, String name) {
    this(server, name, true);
  }

  TestDatabase(PostgresServer server, String name, boolean dropOnClose) {
    this.server = server;
    this.name = name;
    this.dropOnClose = dropOnClose;
  }

  /**
   * The database name.
   *
   * @return the name
   */
  public String name() {
    return name;
  }

  /**
   * The server the database lives on.
   *
   * @return the server
   */
  public PostgresServer server() {
    return server;
  }

  /**
   * JDBC URL of this database.
   *
   * @return the URL
   */
  public String jdbcUrl() {
    return server.jdbcUrl(name);
  }

  /**
   * A pooled data source (HikariCP, up to 40 connections), created on first call.
   *
   * @return the data source, closed with this database
   */
  public synchronized HikariDataSource dataSource() {
    if (dataSource == null) {
      dataSource = newPool(40);
    }
    return dataSource;
  }

  /**
   * A new, separate pool on this database; the caller closes it.
   *
   * @param maxSize the pool's maximum size
   * @return the pool
   */
  public HikariDataSource newPool(int maxSize) {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(jdbcUrl());
    config.setUsername(server.user());
    config.setPassword(server.password());
    config.setMaximumPoolSize(maxSize);
    config.setMinimumIdle(0);
    config.setPoolName("test-" + name);
    return new HikariDataSource(config);
  }

  /**
   * A new unpooled connection, for tests that need a connection of their own (to hold a lock, to
   * be terminated).
   *
   * @return the connection; the caller closes it
   * @throws SQLException if the database cannot be reached
   */
  public Connection newConnection() throws SQLException {
    return DriverManager.getConnection(jdbcUrl(), server.user(), server.password());
  }

  /**
   * Runs one SQL statement in its own connection.
   *
   * @param sql the statement
   */
  public void execute(String sql) {
    try (Connection c = newConnection();
        Statement s = c.createStatement()) {
      s.execute(sql);
    } catch (SQLException e) {
      throw new IllegalStateException("'" + sql + "' failed", e);
    }
  }

  @Override
  public synchronized void close() {
    if (dataSource != null) {
      dataSource.close();
      dataSource = null;
    }
    if (dropOnClose) {
      server.dropDatabase(name);
    }
  }
}
