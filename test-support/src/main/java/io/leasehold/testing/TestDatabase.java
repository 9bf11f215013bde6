package io.leasehold.testing;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import javax.sql.DataSource;
import org.postgresql.ds.PGSimpleDataSource;

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

  TestDatabase(PostgresServer server, String name, boolean dropOnClose) {
    this.server = server;
    this.name = name;
    this.dropOnClose = dropOnClose;
  }

  /**
   * An unpooled data source from connection settings a child process was handed, for the child
   * processes of cross-process tests.
   *
   * @param url the JDBC URL
   * @param user the user
   * @param password the password
   * @return the data source
   */
  public static DataSource connect(String url, String user, String password) {
    PGSimpleDataSource ds = new PGSimpleDataSource();
    ds.setUrl(url);
    ds.setUser(user);
    ds.setPassword(password);
    return ds;
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
   * A new unpooled connection, for tests that need a connection of their own (to hold a lock, to be
   * terminated).
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

  /**
   * Runs one query in its own connection and returns its rows, each a list of the column values as
   * the driver gives them.
   *
   * @param sql the query
   * @return the rows
   */
  public List<List<Object>> query(String sql) {
    try (Connection c = newConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      return Sql.rows(rs);
    } catch (SQLException e) {
      throw new IllegalStateException("'" + sql + "' failed", e);
    }
  }

  /**
   * Runs one query that returns one row, in its own connection, and returns its first column.
   *
   * @param sql the query
   * @param type the column's Java type, as {@link ResultSet#getObject(int, Class)} reads it
   * @param <T> the type
   * @return the value, null if SQL NULL
   * @throws IllegalStateException if the query fails or returns no row
   */
  public <T> T queryOne(String sql, Class<T> type) {
    try (Connection c = newConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      if (!rs.next()) {
        throw new IllegalStateException("'" + sql + "' returned no row");
      }
      return rs.getObject(1, type);
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
