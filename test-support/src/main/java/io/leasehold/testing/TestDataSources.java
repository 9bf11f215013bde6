package io.leasehold.testing;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import javax.sql.DataSource;

/**
 * Data sources with one behaviour changed, for tests of what a store or a framework does with them.
 */
public final class TestDataSources {
  private TestDataSources() {}

  /**
   * A data source whose every call fails as a database that cannot be reached does (SQLState
   * 08001), for the error paths.
   *
   * @return the data source
   */
  public static DataSource unreachable() {
    return dataSource(
        (proxy, method, args) -> {
          throw new SQLException("connection refused", "08001");
        });
  }

  /**
   * A plain {@link DataSource} in front of a pool, which is not {@link AutoCloseable}: a framework
   * that closes AutoCloseable beans (Spring does) then leaves the shared test pool open.
   *
   * @param dataSource the pool
   * @return the data source
   */
  public static DataSource unclosable(DataSource dataSource) {
    if (dataSource == null) {
      throw new IllegalArgumentException("dataSource must not be null");
    }
    return dataSource((proxy, method, args) -> forward(method, dataSource, args));
  }

  /**
   * A data source that counts the connections taken from {@code dataSource}, for a test that checks
   * an answer was given without a round trip.
   *
   * @param dataSource the data source the connections come from
   * @param connections incremented once per {@code getConnection} call
   * @return the data source
   */
  public static DataSource counting(DataSource dataSource, AtomicInteger connections) {
    return dataSource(
        (proxy, method, args) -> {
          if (method.getName().equals("getConnection")) {
            connections.incrementAndGet();
          }
          return forward(method, dataSource, args);
        });
  }

  /**
   * A data source that hands out one connection, the same physical backend every time, whose {@code
   * close()} keeps it open: a pool of one that resets nothing on return (not its network timeout,
   * for one), and never checks the connection before handing it out.
   *
   * @param connection the connection; the caller closes it
   * @return the data source
   */
  public static DataSource oneConnection(Connection connection) {
    Connection kept =
        connection(
            (proxy, method, args) ->
                method.getName().equals("close") ? null : forward(method, connection, args));
    return dataSource(
        (proxy, method, args) -> {
          if (method.getName().equals("getConnection")) {
            return kept;
          }
          throw new UnsupportedOperationException(method.getName());
        });
  }

  /**
   * A data source whose connections refuse to prepare a statement containing {@code marker} while
   * {@code failing} says so (SQLState 08006, as a connection that broke), and pass everything else
   * to {@code dataSource}: one step of an operation fails and the others run.
   *
   * @param dataSource the real data source
   * @param marker text of the statements to fail
   * @param failing whether to fail them now
   * @return the data source
   */
  public static DataSource failingStatements(
      DataSource dataSource, String marker, BooleanSupplier failing) {
    if (dataSource == null || marker == null || failing == null) {
      throw new IllegalArgumentException("dataSource, marker and failing must not be null");
    }
    return dataSource(
        (proxy, method, args) -> {
          Object result = forward(method, dataSource, args);
          return result instanceof Connection c ? failingConnection(c, marker, failing) : result;
        });
  }

  /**
   * A data source that adds the text of every statement its connections prepare to {@code
   * prepared}, in order, and passes everything to {@code dataSource}: what a store sent, for a test
   * of which statement it chose.
   *
   * @param dataSource the real data source
   * @param prepared receives each prepared statement's text; thread-safe if it is
   * @return the data source
   */
  public static DataSource recording(DataSource dataSource, java.util.List<String> prepared) {
    if (dataSource == null || prepared == null) {
      throw new IllegalArgumentException("dataSource and prepared must not be null");
    }
    return dataSource(
        (proxy, method, args) -> {
          Object result = forward(method, dataSource, args);
          if (!(result instanceof Connection c)) {
            return result;
          }
          return connection(
              (cproxy, cmethod, cargs) -> {
                if (cmethod.getName().startsWith("prepare")
                    && cargs != null
                    && cargs[0] instanceof String sql) {
                  prepared.add(sql);
                }
                return forward(cmethod, c, cargs);
              });
        });
  }

  private static Connection failingConnection(
      Connection connection, String marker, BooleanSupplier failing) {
    return connection(
        (proxy, method, args) -> {
          if (method.getName().startsWith("prepare")
              && args != null
              && args[0] instanceof String sql
              && sql.contains(marker)
              && failing.getAsBoolean()) {
            throw new SQLException("test: the connection broke before '" + marker + "'", "08006");
          }
          return forward(method, connection, args);
        });
  }

  private static DataSource dataSource(InvocationHandler handler) {
    return (DataSource)
        Proxy.newProxyInstance(
            DataSource.class.getClassLoader(), new Class<?>[] {DataSource.class}, handler);
  }

  private static Connection connection(InvocationHandler handler) {
    return (Connection)
        Proxy.newProxyInstance(
            Connection.class.getClassLoader(), new Class<?>[] {Connection.class}, handler);
  }

  private static Object forward(java.lang.reflect.Method method, Object target, Object[] args)
      throws Throwable {
    try {
      return method.invoke(target, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }
}
