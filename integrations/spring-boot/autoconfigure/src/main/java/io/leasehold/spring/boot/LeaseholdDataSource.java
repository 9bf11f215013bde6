package io.leasehold.spring.boot;

import com.zaxxer.hikari.HikariDataSource;
import javax.sql.DataSource;

/**
 * The connections Leasehold's beans use. A type of its own rather than a second {@code DataSource}
 * bean, so that the application's {@code DataSource} auto-configuration never backs off because of
 * Leasehold's pool.
 */
public final class LeaseholdDataSource implements AutoCloseable {
  private final DataSource dataSource;

  /** Whether {@link #dataSource} is Leasehold's own pool, a {@link HikariDataSource} it closes. */
  private final boolean owned;

  private LeaseholdDataSource(DataSource dataSource, boolean owned) {
    this.dataSource = dataSource;
    this.owned = owned;
  }

  /**
   * Leasehold's own pool, closed with this bean.
   *
   * @param pool the pool
   * @return the bean
   */
  public static LeaseholdDataSource owned(HikariDataSource pool) {
    if (pool == null) {
      throw new IllegalArgumentException("pool must not be null");
    }
    return new LeaseholdDataSource(pool, true);
  }

  /**
   * The application's data source, which the application closes.
   *
   * @param dataSource the data source
   * @return the bean
   */
  public static LeaseholdDataSource shared(DataSource dataSource) {
    if (dataSource == null) {
      throw new IllegalArgumentException("dataSource must not be null");
    }
    return new LeaseholdDataSource(dataSource, false);
  }

  /**
   * The connections.
   *
   * @return the data source
   */
  public DataSource dataSource() {
    return dataSource;
  }

  /**
   * Whether the pool is Leasehold's own ({@code leasehold.datasource.url}).
   *
   * @return true if this bean closes it
   */
  public boolean isOwned() {
    return owned;
  }

  /** Closes Leasehold's own pool; leaves the application's data source alone. */
  @Override
  public void close() {
    if (owned) {
      ((HikariDataSource) dataSource).close();
    }
  }
}
