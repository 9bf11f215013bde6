package io.leasehold.adapters.jdbc;

import io.leasehold.adapters.internal.SqlNames;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.TokenVerificationException;
import io.leasehold.fencing.TokenVerifier;
import io.leasehold.fencing.internal.Arguments;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * Verifies tokens online against the lease table (CONTRACT C15), for a resource that can reach
 * the lease database but has no signing keys: a token is admitted only if the table issued its
 * fence for its key. One primary-key read per verification.
 *
 * <pre>{@code
 * TokenVerifier verifier = LeaseTableVerifier.of(leaseDataSource, "leasehold_lease");
 * FencedFileStore files = FencedFileStore.open(root, verifier);
 * }</pre>
 *
 * <p>What it proves: the fence is not above the key's current fence, and if it equals it, the run
 * id is the current run's. A forged fence above the sequence's reach (the attack that locks honest
 * runs out) is refused. What it cannot prove: that a <em>lower</em> fence belonged to the run id
 * presented, since the table keeps only the latest run of each key. Such a token can never raise
 * the mark past an honest run, but it can write if the resource has not yet seen a newer run: use
 * signed tokens where that matters. A database writer on the lease database does the same check
 * inside its own transaction: {@link FencedJdbcWriter.Builder#verifyAgainstLeaseTable(String)}.
 *
 * <p>A database failure refuses the token ({@link TokenVerificationException.Reason#UNAVAILABLE}):
 * fail closed. Thread-safe.
 */
public final class LeaseTableVerifier implements TokenVerifier {
  private final DataSource dataSource;
  private final String table;
  private final String sql;

  private LeaseTableVerifier(DataSource dataSource, String table, Duration statementTimeout) {
    this.dataSource = dataSource;
    this.table = table;
    // The key's row, with a statement timeout so an unreachable lock never stalls a write; a
    // read takes no row lock (an acquire in flight is simply not visible yet).
    this.sql =
        "SELECT set_config('statement_timeout', '" + statementTimeout.toMillis() + "', true);"
            + " SELECT fence, run_id FROM " + table + " WHERE account_id = ? AND session_id = ?";
  }

  /**
   * A verifier on a lease table, with a 2 s statement timeout.
   *
   * @param dataSource the lease database
   * @param leaseTable the lease table (lease-core's default is {@code leasehold_lease}), optionally
   *     schema-qualified
   * @return the verifier
   */
  public static LeaseTableVerifier of(DataSource dataSource, String leaseTable) {
    Arguments.required(dataSource, "dataSource");
    return new LeaseTableVerifier(dataSource, SqlNames.qualifiedIdentifier(leaseTable, "lease table name"), Duration.ofSeconds(2));
  }

  @Override
  public void verify(FencingToken token) {
    Arguments.required(token, "token");
    long fence;
    UUID run;
    try (Connection c = dataSource.getConnection()) {
      boolean autoCommit = c.getAutoCommit();
      if (!autoCommit) {
        c.setAutoCommit(true);
      }
      try (PreparedStatement ps = c.prepareStatement(sql)) {
        ps.setString(1, token.key().accountId());
        ps.setString(2, token.key().sessionId());
        ps.execute();
        ps.getMoreResults();
        try (ResultSet rs = ps.getResultSet()) {
          if (!rs.next()) {
            throw refused(token, "has no lease for the key at all");
          }
          fence = rs.getLong(1);
          run = rs.getObject(2, UUID.class);
        }
      } finally {
        if (!autoCommit) {
          c.setAutoCommit(false);
        }
      }
    } catch (SQLException e) {
      throw new TokenVerificationException(
          TokenVerificationException.Reason.UNAVAILABLE,
          "could not verify " + token + " against " + table + " (" + e.getMessage() + "); refused",
          e);
    }
    if (token.fence() > fence) {
      throw refused(token, "has issued fences only up to " + fence + " for the key");
    }
    if (token.fence() == fence && !token.runId().equals(run)) {
      throw refused(token, "issued fence " + fence + " to another run");
    }
  }

  private TokenVerificationException refused(FencingToken token, String why) {
    return new TokenVerificationException(
        TokenVerificationException.Reason.NOT_ISSUED,
        "refused " + token + ": " + table + " " + why + " (a forged or damaged token); nothing changed");
  }

  @Override
  public String toString() {
    return "LeaseTableVerifier[" + table + "]";
  }
}
