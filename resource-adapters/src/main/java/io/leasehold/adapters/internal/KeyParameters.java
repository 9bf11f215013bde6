package io.leasehold.adapters.internal;

import io.leasehold.fencing.LeaseKey;
import java.sql.PreparedStatement;
import java.sql.SQLException;

/**
 * A lease key as a statement's parameters: its account, then its session, the order of every key
 * column pair in the adapters' tables.
 */
public final class KeyParameters {
  private KeyParameters() {}

  /**
   * Binds the key from parameter {@code first} on.
   *
   * @param ps the statement
   * @param first the account's parameter index
   * @param key the key
   * @return the index of the parameter after the session
   * @throws SQLException if the statement refuses a parameter
   */
  public static int bind(PreparedStatement ps, int first, LeaseKey key) throws SQLException {
    ps.setString(first, key.accountId());
    ps.setString(first + 1, key.sessionId());
    return first + 2;
  }
}
