package io.leasehold.adapters.jdbc;

import io.leasehold.fencing.FencingToken;
import java.sql.Connection;
import java.sql.SQLException;

/**
 * The caller's writes, run by {@link FencedJdbcWriter#write} inside the fenced transaction.
 *
 * @param <T> the result
 */
@FunctionalInterface
public interface JdbcWork<T> {
  /**
   * Runs the writes. Do not commit, roll back or change the auto-commit mode of the connection: the
   * writer owns the transaction.
   *
   * @param connection the transaction's connection
   * @param token the admitted token
   * @return the result
   * @throws SQLException to roll the whole transaction back
   */
  T run(Connection connection, FencingToken token) throws SQLException;
}
