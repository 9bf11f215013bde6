package io.leasehold.adapters.jdbc;

import io.leasehold.adapters.ResourceAccessException;
import io.leasehold.fencing.Fenced;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.LeaseLostException;
import io.leasehold.fencing.StaleFenceException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.OptionalLong;
import javax.sql.DataSource;

/**
 * Runs the caller's JDBC writes in one transaction that commits only if the token's fence is at
 * least the key's high-water mark (CONTRACT C9, C10).
 *
 * <pre>{@code
 * FencedJdbcWriter writer = FencedJdbcWriter.builder(resourceDataSource).build();
 * writer.write(lease, (connection, token) -> {
 *   try (PreparedStatement ps = connection.prepareStatement("INSERT INTO messages ...")) {
 *     ...
 *   }
 *   return null;
 * });
 * }</pre>
 *
 * <p>The transaction's first statement is a conditional UPSERT on the key's row of the
 * high-water table ({@link HighWaterSchema}): it raises the mark, or returns nothing when the
 * fence is stale. Either way it holds the row lock until the transaction ends, so writers of one
 * key are serialized and no lower fence can commit after a higher one (also across processes: the
 * lock is the database's). A stale token rolls everything back and throws {@link
 * StaleFenceException}; nothing the work did is kept.
 *
 * <h2>Strict mode</h2>
 *
 * The fence alone refuses a run once a <em>newer</em> run has written here. A run whose lease
 * expired but that nobody has replaced yet still has the highest fence, so its late write would be
 * admitted. When the resource database is also the lease database, {@link
 * Builder#strictLeaseTable(String)} adds, as the transaction's last statement, a check that the
 * run still holds a live lease (key, run id and fence match, not released, not expired by {@code
 * clock_timestamp()}), taken with {@code FOR SHARE} so the lease cannot change until the commit;
 * otherwise everything rolls back and {@link LeaseLostException} is thrown. The check briefly
 * delays a renewal or takeover of the same lease by the length of the commit.
 *
 * <h2>Admission at commit</h2>
 *
 * By default the admission is the transaction's first statement, which costs one round trip of
 * its own and serializes the whole transactions of a key's writers. {@link
 * Builder#admitAtCommit(boolean)} sends it instead after the work, in one round trip with the
 * COMMIT (and strict mode's check): a refused admission raises an error in that same pipeline,
 * so PostgreSQL skips the COMMIT and everything rolls back. Stale writes are refused just the
 * same (the mark's row lock is held from the admission to the commit, so commits still happen in
 * fence order), but the work of two writers of one key may run at the same time: a stale writer's
 * work runs and is then rolled back, and a newer writer's reads are not ordered after an older
 * writer's admitted commit. Use it when the work does not read what another writer of the key
 * writes, or locks what it reads.
 *
 * <p>Thread-safe.
 */
public final class FencedJdbcWriter {
  /** The SQLSTATE of a refusal in the admission-at-commit pipeline. */
  private static final String DIVISION_BY_ZERO = "22012";

  private final DataSource dataSource;
  private final HighWaterSchema schema;
  private final String leaseTable;
  private final Duration lockTimeout;

  /**
   * The admission: raise the mark or return nothing when stale. ON CONFLICT locks the key's row
   * whether or not the WHERE holds, so the mark cannot move until this transaction ends. (A plain
   * UPDATE with an INSERT for a key's first write, in one statement, measured no faster.)
   *
   * <p>The {@code cfg} CTE sets the transaction's {@code lock_timeout} within the same statement:
   * the insert's values are produced from it, so the setting is made before the insert can wait
   * for the row lock (PostgreSQL reads {@code lock_timeout} when a wait begins), and one statement
   * costs less than two. Parameters: see {@link #bindAdmission}.
   */
  private final String admitSql;

  /** The mark of a refused token, read under the row lock the admission took. */
  private final String markSql;

  /**
   * Strict mode's last statement: the run's lease is live by database time. FOR SHARE keeps the
   * lease row from being renewed, released or taken over until the commit. Parameters: account,
   * session, run id, fence.
   */
  private final String liveLeaseSql;

  /**
   * Admission at commit: the admission (with its timeout), strict mode's check and the COMMIT,
   * one round trip. Each check divides by the number of rows it found, so a refusal is an error
   * (division by zero, SQLSTATE 22012) that makes PostgreSQL skip the rest of the pipeline,
   * COMMIT included; the caller then rolls back and reads the mark to say which check refused.
   * Parameters: the admission's (see {@link #bindAdmission}), then strict mode's account,
   * session, run id, fence.
   */
  private final String admitAndCommitSql;

  private final boolean admitAtCommit;

  private FencedJdbcWriter(Builder b) {
    this.dataSource = b.dataSource;
    this.schema = b.schema;
    this.leaseTable = b.leaseTable;
    this.lockTimeout = b.lockTimeout;
    this.admitAtCommit = b.admitAtCommit;
    String t = schema.table();
    String cfg = "cfg AS (SELECT set_config('lock_timeout', '" + lockTimeout.toMillis() + "', true))";
    String admission =
        "INSERT INTO " + t + " AS h (account_id, session_id, fence, run_id, admitted_at)"
            + " SELECT ?, ?, ?, ?, clock_timestamp() FROM cfg"
            + " ON CONFLICT (account_id, session_id) DO UPDATE SET fence = EXCLUDED.fence,"
            + " run_id = EXCLUDED.run_id, admitted_at = EXCLUDED.admitted_at"
            + " WHERE h.fence <= EXCLUDED.fence";
    this.admitSql = "WITH " + cfg + " " + admission + " RETURNING h.fence";
    this.markSql = "SELECT fence FROM " + t + " WHERE account_id = ? AND session_id = ?";
    this.liveLeaseSql =
        leaseTable == null
            ? null
            : "SELECT 1 FROM " + leaseTable
                + " WHERE account_id = ? AND session_id = ? AND run_id = ? AND fence = ?"
                + " AND released_at IS NULL AND expires_at > clock_timestamp() FOR SHARE";
    this.admitAndCommitSql =
        "WITH " + cfg + ", admitted AS (" + admission + " RETURNING 1) SELECT 1 / count(*) FROM admitted; "
            + (leaseTable == null
                ? ""
                : "SELECT 1 / count(*) FROM (" + liveLeaseSql + ") AS live; ")
            + "COMMIT";
  }

  /**
   * Starts a builder.
   *
   * @param dataSource the resource database (PostgreSQL)
   * @return the builder
   */
  public static Builder builder(DataSource dataSource) {
    return new Builder(dataSource);
  }

  /**
   * Runs the work in one fenced transaction.
   *
   * @param fenced the run's lease (refused locally once lost) or token
   * @param work the writes
   * @param <T> the work's result
   * @return what the work returned, after the commit
   * @throws StaleFenceException if a newer run has been admitted for the key; rolled back
   * @throws LeaseLostException if the lease is known lost locally, or in strict mode if the run no
   *     longer holds a live lease; rolled back
   * @throws ResourceAccessException if the database or the work fails; rolled back
   */
  public <T> T write(Fenced fenced, JdbcWork<T> work) {
    if (work == null) {
      throw new IllegalArgumentException("work must not be null");
    }
    FencingToken token = Fenced.present(fenced);
    try (Connection c = dataSource.getConnection()) {
      boolean autoCommit = c.getAutoCommit();
      c.setAutoCommit(false);
      try {
        if (admitAtCommit) {
          T result = work.run(c, token);
          admitAndCommit(c, token);
          return result;
        }
        admit(c, token);
        T result = work.run(c, token);
        if (liveLeaseSql != null) {
          checkLiveLease(c, token);
        }
        c.commit();
        return result;
      } catch (SQLException | RuntimeException e) {
        rollback(c, e);
        throw e;
      } finally {
        c.setAutoCommit(autoCommit);
      }
    } catch (SQLException e) {
      throw new ResourceAccessException(
          "fenced transaction for " + token + " failed and was rolled back: " + e.getMessage(), e);
    }
  }

  /**
   * The highest fence admitted for a key.
   *
   * @param key the lease key
   * @return the mark, or empty if none
   * @throws ResourceAccessException if the database fails
   */
  public OptionalLong highWaterMark(LeaseKey key) {
    if (key == null) {
      throw new IllegalArgumentException("key must not be null");
    }
    try (Connection c = dataSource.getConnection()) {
      return readMark(c, key);
    } catch (SQLException e) {
      throw new ResourceAccessException("could not read the high-water mark of " + key, e);
    }
  }

  private void admit(Connection c, FencingToken token) throws SQLException {
    boolean admitted;
    try (PreparedStatement ps = c.prepareStatement(admitSql)) {
      bindAdmission(ps, token);
      try (ResultSet rs = ps.executeQuery()) {
        admitted = rs.next();
      }
    }
    if (!admitted) {
      throw new StaleFenceException(token, readMark(c, token.key()).orElseThrow());
    }
  }

  private OptionalLong readMark(Connection c, LeaseKey key) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(markSql)) {
      ps.setString(1, key.accountId());
      ps.setString(2, key.sessionId());
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? OptionalLong.of(rs.getLong(1)) : OptionalLong.empty();
      }
    }
  }

  /**
   * Binds the admission's parameters: account, session, fence, run id.
   *
   * @return the next parameter index
   */
  private static int bindAdmission(PreparedStatement ps, FencingToken token) throws SQLException {
    ps.setString(1, token.key().accountId());
    ps.setString(2, token.key().sessionId());
    ps.setLong(3, token.fence());
    ps.setObject(4, token.runId());
    return 5;
  }

  /** Binds strict mode's check (account, session, run id, fence) from parameter {@code first}. */
  private static void bindLiveLease(PreparedStatement ps, FencingToken token, int first) throws SQLException {
    ps.setString(first, token.key().accountId());
    ps.setString(first + 1, token.key().sessionId());
    ps.setObject(first + 2, token.runId());
    ps.setLong(first + 3, token.fence());
  }

  private void admitAndCommit(Connection c, FencingToken token) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(admitAndCommitSql)) {
      int next = bindAdmission(ps, token);
      if (leaseTable != null) {
        bindLiveLease(ps, token, next);
      }
      ps.execute();
    } catch (SQLException e) {
      if (!DIVISION_BY_ZERO.equals(e.getSQLState())) {
        throw e;
      }
      // Refused: the pipeline stopped before its COMMIT. Roll back, then say which check it was.
      c.rollback();
      long highest = readMark(c, token.key()).orElse(0);
      c.rollback();
      if (highest > token.fence()) {
        throw new StaleFenceException(token, highest);
      }
      if (leaseTable != null) {
        throw new LeaseLostException(token, "no live lease in " + leaseTable + " at commit");
      }
      throw e;
    }
  }

  private void checkLiveLease(Connection c, FencingToken token) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(liveLeaseSql)) {
      bindLiveLease(ps, token, 1);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          throw new LeaseLostException(token, "no live lease in " + leaseTable + " at commit");
        }
      }
    }
  }

  private static void rollback(Connection c, Exception failure) {
    try {
      c.rollback();
    } catch (SQLException e) {
      failure.addSuppressed(e);
    }
  }

  /** Options of a {@link FencedJdbcWriter}. Not thread-safe. */
  public static final class Builder {
    private final DataSource dataSource;
    private HighWaterSchema schema = HighWaterSchema.defaults();
    private String leaseTable;
    private Duration lockTimeout = Duration.ofSeconds(5);
    private boolean admitAtCommit;

    private Builder(DataSource dataSource) {
      if (dataSource == null) {
        throw new IllegalArgumentException("dataSource must not be null");
      }
      this.dataSource = dataSource;
    }

    /**
     * The high-water table. Default {@link HighWaterSchema#defaults()}.
     *
     * @param schema the table
     * @return this builder
     */
    public Builder schema(HighWaterSchema schema) {
      if (schema == null) {
        throw new IllegalArgumentException("schema must not be null");
      }
      this.schema = schema;
      return this;
    }

    /**
     * Enables strict mode: the resource database is the lease database, and a write commits only
     * if the run still holds a live lease in this table. Default off.
     *
     * @param leaseTable the lease table's name (lease-core's default is {@code leasehold_lease})
     * @return this builder
     */
    public Builder strictLeaseTable(String leaseTable) {
      if (leaseTable == null || !HighWaterSchema.IDENTIFIER.matcher(leaseTable).matches()) {
        throw new IllegalArgumentException(
            "lease table name '" + leaseTable + "' is not a lower-case SQL identifier of at most 40 characters");
      }
      this.leaseTable = leaseTable;
      return this;
    }

    /**
     * How long the admission waits for another writer of the same key. Default 5 s.
     *
     * @param lockTimeout at least 1 ms
     * @return this builder
     */
    public Builder lockTimeout(Duration lockTimeout) {
      if (lockTimeout == null || lockTimeout.toMillis() < 1 || lockTimeout.compareTo(Duration.ofHours(1)) > 0) {
        throw new IllegalArgumentException("lockTimeout must be between 1 ms and 1 h");
      }
      this.lockTimeout = lockTimeout;
      return this;
    }

    /**
     * Sends the admission after the work, in one round trip with the COMMIT, instead of as the
     * transaction's first statement: one round trip fewer per transaction, but writers of one key
     * are no longer serialized while their work runs (see the class documentation). Default
     * false.
     *
     * @param admitAtCommit true to admit at commit
     * @return this builder
     */
    public Builder admitAtCommit(boolean admitAtCommit) {
      this.admitAtCommit = admitAtCommit;
      return this;
    }

    /**
     * Builds the writer. No connection is opened here.
     *
     * @return the writer
     */
    public FencedJdbcWriter build() {
      return new FencedJdbcWriter(this);
    }
  }
}
