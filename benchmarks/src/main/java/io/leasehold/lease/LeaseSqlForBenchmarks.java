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
   * Binds the acquire statement's parameters.
   *
   * @param ps the prepared acquire
   * @param account account id
   * @param session session id
   * @param runId the new run
   * @param holder the holder label
   * @param ttlMicros the lease's ttl
   * @param takeoverDelayMicros the takeover delay
   * @throws java.sql.SQLException if the driver refuses a value
   */
  public static void bindAcquire(
      java.sql.PreparedStatement ps, String account, String session, java.util.UUID runId, String holder,
      long ttlMicros, long takeoverDelayMicros)
      throws java.sql.SQLException {
    LeaseSql.bindAcquire(ps, io.leasehold.fencing.LeaseKey.of(account, session), runId, holder, ttlMicros, takeoverDelayMicros);
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
   * The status statement.
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
