package io.leasehold.adapters.internal;

import io.leasehold.fencing.FencingToken;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Optional;

/**
 * What else a guard's admission requires, checked by the admission statement itself (the database
 * writer's online verification): a SQL condition over the candidate row {@code k} (account_id,
 * session_id, fence, run_id) with parameters of its own, and the reason it gives when it refused.
 *
 * @param sql the condition
 * @param binder binds its parameters
 * @param explainer why it refused, read after the refusal
 */
public record SqlAdmissionCondition(String sql, Binder binder, Explainer explainer) {

  /** Binds a {@link SqlAdmissionCondition}'s parameters. */
  @FunctionalInterface
  public interface Binder {
    /**
     * @param ps the admission
     * @param token the token
     * @param first the condition's first parameter index
     * @return the next index
     * @throws SQLException if binding fails
     */
    int bind(PreparedStatement ps, FencingToken token, int first) throws SQLException;
  }

  /** Says why a {@link SqlAdmissionCondition} refused. */
  @FunctionalInterface
  public interface Explainer {
    /**
     * @param c the connection
     * @param token the refused token
     * @return the refusal, or empty if the condition holds now
     * @throws SQLException if the database fails
     */
    Optional<RuntimeException> explain(Connection c, FencingToken token) throws SQLException;
  }
}
