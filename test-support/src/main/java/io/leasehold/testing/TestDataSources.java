package io.leasehold.testing;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.SQLException;
import javax.sql.DataSource;

/** Data sources with one behaviour changed, for tests of what a store or a framework does with them. */
public final class TestDataSources {
  private TestDataSources() {}

  /**
   * A data source whose every call fails as a database that cannot be reached does (SQLState
   * 08001), for the error paths.
   *
   * @return the data source
   */
  public static DataSource unreachable() {
    return (DataSource)
        Proxy.newProxyInstance(
            DataSource.class.getClassLoader(),
            new Class<?>[] {DataSource.class},
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
    return (DataSource)
        Proxy.newProxyInstance(
            DataSource.class.getClassLoader(),
            new Class<?>[] {DataSource.class},
            (proxy, method, args) -> {
              try {
                return method.invoke(dataSource, args);
              } catch (InvocationTargetException e) {
                throw e.getCause();
              }
            });
  }
}
