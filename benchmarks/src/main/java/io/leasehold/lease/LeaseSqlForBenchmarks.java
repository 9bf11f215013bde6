package io.leasehold.lease;

import java.time.Duration;

/**
 * The exact statements the lease store sends, for the benchmark that issues them from a bare
 * JDBC loop (the floor of the library's own overhead). Lives in the store's package because the
 * statements are package-private; it is not part of any API.
 */
public final class LeaseSqlForBenchmarks {
  private final LeaseSql sql;

  /**
   * Builds the statements the store would use.
   *
   * @param lockTimeout the store's lock timeout
   * @param statementTimeout the store's statement timeout
   */
  public LeaseSqlForBenchmarks(Duration lockTimeout, Duration statementTimeout) {
    this(lockTimeout, statementTimeout, false);
  }

  /**
   * Builds the statements the store would use.
   *
   * @param lockTimeout the store's lock timeout
   * @param statementTimeout the store's statement timeout
   * @param notify whether the store publishes live status ({@code notifyChanges(true)})
   */
  public LeaseSqlForBenchmarks(Duration lockTimeout, Duration statementTimeout, boolean notify) {
    this.sql = new LeaseSql(LeaseSchema.defaults(), lockTimeout, statementTimeout, notify);
  }

  /**
   * The acquire statement.
   *
   * @return the SQL
   */
  public String acquire() {
    return sql.acquire;
  }

  /**
   * The release statement.
   *
   * @return the SQL
   */
  public String release() {
    return sql.release;
  }

  /**
   * The status statement (the store reads it after a refused acquire, for the Busy answer).
   *
   * @return the SQL
   */
  public String status() {
    return sql.status;
  }

  /**
   * The batch renewal statement.
   *
   * @return the SQL
   */
  public String renew() {
    return sql.renew;
  }
}
