package io.leasehold.examples.demo;

import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * A data source that can be cut off, to simulate a network partition between a device and the
 * database.
 */
public final class PartitionableDataSource implements DataSource {
  private final DataSource delegate;
  private volatile boolean partitioned;

  /**
   * Wraps a data source.
   *
   * @param delegate the real data source
   */
  public PartitionableDataSource(DataSource delegate) {
    this.delegate = delegate;
  }

  /**
   * Cuts the device off from the database, or reconnects it.
   *
   * @param on true to refuse every new connection
   */
  public void partition(boolean on) {
    partitioned = on;
  }

  private void check() throws SQLException {
    if (partitioned) {
      throw new SQLException("simulated network partition: database unreachable", "08001");
    }
  }

  @Override
  public Connection getConnection() throws SQLException {
    check();
    return delegate.getConnection();
  }

  @Override
  public Connection getConnection(String username, String password) throws SQLException {
    check();
    return delegate.getConnection(username, password);
  }

  @Override
  public PrintWriter getLogWriter() throws SQLException {
    return delegate.getLogWriter();
  }

  @Override
  public void setLogWriter(PrintWriter out) throws SQLException {
    delegate.setLogWriter(out);
  }

  @Override
  public void setLoginTimeout(int seconds) throws SQLException {
    delegate.setLoginTimeout(seconds);
  }

  @Override
  public int getLoginTimeout() throws SQLException {
    return delegate.getLoginTimeout();
  }

  @Override
  public Logger getParentLogger() throws SQLFeatureNotSupportedException {
    return delegate.getParentLogger();
  }

  @Override
  public <T> T unwrap(Class<T> iface) throws SQLException {
    return delegate.unwrap(iface);
  }

  @Override
  public boolean isWrapperFor(Class<?> iface) throws SQLException {
    return delegate.isWrapperFor(iface);
  }
}
