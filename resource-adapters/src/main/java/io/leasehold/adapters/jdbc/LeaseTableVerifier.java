package io.leasehold.adapters.jdbc;

import io.leasehold.adapters.internal.SqlNames;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.TokenVerificationException;
import io.leasehold.fencing.TokenVerifier;
import io.leasehold.fencing.internal.Arguments;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * Verifies tokens online against the lease table (CONTRACT C15), for a resource that can reach the
 * lease database but has no signing keys: a token is admitted only while its run holds the lease.
 * One primary-key read per verification.
 *
 * <pre>{@code
 * TokenVerifier verifier = LeaseTableVerifier.of(leaseDataSource, "leasehold_lease");
 * FencedFileStore files = FencedFileStore.open(root, verifier);
 * }</pre>
 *
 * <p>What it proves: the key's row names the token's fence and run id, the run has not released the
 * lease, and the lease has not expired by the database's clock. Refused:
 *
 * <ul>
 *   <li>{@link TokenVerificationException.Reason#NOT_ISSUED}: a fence above the key's current one
 *       (the forged fence that would lock honest runs out), the current fence with another run id,
 *       a key the table has no row for;
 *   <li>{@link TokenVerificationException.Reason#EXPIRED}: a genuine token whose run no longer
 *       holds the lease: it released it (at once, unlike a signed token, which stays valid until
 *       its window ends), its lease expired, or a newer run acquired the key (a lower fence than
 *       the key's current one, whether or not the resource has seen the newer run yet).
 * </ul>
 *
 * <p>It proves this at the moment of the read: a run that releases right after it was verified can
 * still finish that one write (the resource's high-water mark then refuses it once a newer run has
 * written). A database writer on the lease database makes the same check inside its admission
 * statement ({@link FencedJdbcWriter.Builder#verifyAgainstLeaseTable(String)}), and its strict mode
 * holds the lease row until the commit.
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
    // The key's row and then the database's clock (the coordinator's on Citus), with a statement
    // timeout so an unreachable lock never stalls a write; a read takes no row lock (an acquire in
    // flight is simply not visible yet, and its run has no token yet either).
    this.sql =
        "SELECT set_config('statement_timeout', '"
            + statementTimeout.toMillis()
            + "', true);"
            + " SELECT "
            + LeaseRow.COLUMNS
            + " FROM "
            + table
            + " AS l WHERE l.account_id = ? AND l.session_id = ?"
            + LeaseRow.THEN_CLOCK;
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
    return new LeaseTableVerifier(
        dataSource,
        SqlNames.qualifiedIdentifier(leaseTable, "lease table name"),
        Duration.ofSeconds(2));
  }

  @Override
  public void verify(FencingToken token) {
    Arguments.required(token, "token");
    Optional<LeaseRow> row;
    try (Connection c = dataSource.getConnection()) {
      boolean autoCommit = c.getAutoCommit();
      if (!autoCommit) {
        c.setAutoCommit(true);
      }
      try (PreparedStatement ps = c.prepareStatement(sql)) {
        ps.setString(1, token.key().accountId());
        ps.setString(2, token.key().sessionId());
        row = LeaseRow.query(ps, 1);
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
    Optional<TokenVerificationException> refusal = LeaseRow.refusal(table, token, row);
    if (refusal.isPresent()) {
      throw refusal.get();
    }
  }

  @Override
  public String toString() {
    return "LeaseTableVerifier[" + table + "]";
  }
}
