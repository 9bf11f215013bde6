package io.leasehold.adapters.jdbc;

import io.leasehold.adapters.ResourceAccessException;
import io.leasehold.fencing.AdminDeniedException;
import io.leasehold.fencing.AdminPolicy;
import io.leasehold.fencing.Fenced;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.GuardListener;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.LeaseLostException;
import io.leasehold.fencing.MarkReset;
import io.leasehold.fencing.StaleFenceException;
import io.leasehold.fencing.TokenVerificationException;
import io.leasehold.fencing.TokenVerifier;
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
 * FencedJdbcWriter writer = FencedJdbcWriter.builder(resourceDataSource)
 *     .verifier(TokenVerifier.signedBy(keys)) // or .verifyAgainstLeaseTable("leasehold_lease")
 *     .build();
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
 * <h2>Verification</h2>
 *
 * Every writer is built with an explicit choice (CONTRACT C15): a {@link TokenVerifier} (signed
 * tokens, or {@link TokenVerifier#trustEveryWriter()}) checked before the transaction opens, or
 * {@link Builder#verifyAgainstLeaseTable(String)} when the resource database is also the lease
 * database: the admission statement itself then refuses a fence the lease table never issued for
 * the key (above the key's current fence, or the current fence with another run id), with no
 * extra round trip. Either way a refused token changes nothing and throws {@link
 * TokenVerificationException}.
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
  /** The resource kind this guard reports to its {@link GuardListener}. */
  public static final String RESOURCE = "jdbc";

  /** The SQLSTATE of a refusal in the admission-at-commit pipeline. */
  private static final String DIVISION_BY_ZERO = "22012";

  private final DataSource dataSource;
  private final HighWaterSchema schema;
  private final String leaseTable;
  private final String verifyTable;
  private final TokenVerifier verifier;
  private final AdminPolicy adminPolicy;
  private final Duration lockTimeout;
  private final GuardListener listener;

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

  /**
   * The online check alone, run only to explain a refusal: does the lease table know this fence
   * and run for the key? Parameters: account, session, fence, fence, run id.
   */
  private final String issuedSql;

  /**
   * Mark reset, audited in the same transaction: lock the key's row (if any), then set or delete
   * it, then append the audit record. See {@link #resetMark}.
   */
  private final String lockMarkSql;

  private final String setMarkSql;
  private final String deleteMarkSql;
  private final String auditResetSql;

  private final HighWaterTableCheck tableCheck;

  private static String qualify(String databaseSchema, String table) {
    return table == null || table.indexOf('.') >= 0 ? table : databaseSchema + "." + table;
  }

  private FencedJdbcWriter(Builder b) {
    this.dataSource = b.dataSource;
    this.schema = b.schema;
    // Every name schema-qualified: a look-alike table earlier on the search_path is never used.
    this.leaseTable = qualify(b.databaseSchema, b.leaseTable);
    this.verifyTable = qualify(b.databaseSchema, b.verifyTable);
    this.verifier = b.verifier;
    this.listener = b.listener;
    this.adminPolicy = b.adminPolicy;
    this.lockTimeout = b.lockTimeout;
    this.admitAtCommit = b.admitAtCommit;
    String t = b.databaseSchema + "." + schema.table();
    this.tableCheck = new HighWaterTableCheck(t);
    String cfg = "cfg AS (SELECT set_config('lock_timeout', '" + lockTimeout.toMillis() + "', true))";
    // Online verification: the proposed row exists only if the lease table issued the fence for
    // the key (a lower fence than the key's current one was issued to an earlier run; the current
    // one must name the same run). No proposed row means no conflict, no lock, no admission.
    String issued =
        verifyTable == null
            ? ""
            : " WHERE EXISTS (SELECT 1 FROM " + verifyTable + " AS l WHERE l.account_id = ? AND l.session_id = ?"
                + " AND (l.fence > ? OR (l.fence = ? AND l.run_id = ?)))";
    this.issuedSql =
        verifyTable == null ? null : "SELECT 1 FROM (SELECT) AS one" + issued;
    String admission =
        "INSERT INTO " + t + " AS h (account_id, session_id, fence, run_id, admitted_at)"
            + " SELECT ?, ?, ?, ?, clock_timestamp() FROM cfg" + issued
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
    this.lockMarkSql = "SELECT fence FROM " + t + " WHERE account_id = ? AND session_id = ? FOR UPDATE";
    this.setMarkSql =
        "INSERT INTO " + t + " AS h (account_id, session_id, fence, run_id, admitted_at)"
            + " VALUES (?, ?, ?, '00000000-0000-0000-0000-000000000000', clock_timestamp())"
            + " ON CONFLICT (account_id, session_id) DO UPDATE SET fence = EXCLUDED.fence,"
            + " run_id = EXCLUDED.run_id, admitted_at = EXCLUDED.admitted_at";
    this.deleteMarkSql = "DELETE FROM " + t + " WHERE account_id = ? AND session_id = ?";
    this.auditResetSql =
        "INSERT INTO " + t + "_audit (at, operator, account_id, session_id, previous_mark, new_mark, reason)"
            + " VALUES (clock_timestamp(), ?, ?, ?, ?, ?, ?) RETURNING at";
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
   * @throws TokenVerificationException if the token fails verification; nothing changed
   * @throws LeaseLostException if the lease is known lost locally, or in strict mode if the run no
   *     longer holds a live lease; rolled back
   * @throws ResourceAccessException if the database or the work fails; rolled back
   */
  public <T> T write(Fenced fenced, JdbcWork<T> work) {
    return GuardListener.observe(listener, RESOURCE, () -> writeUnobserved(fenced, work));
  }

  private <T> T writeUnobserved(Fenced fenced, JdbcWork<T> work) {
    if (work == null) {
      throw new IllegalArgumentException("work must not be null");
    }
    FencingToken token =
        verifier == null ? Fenced.present(fenced) : TokenVerifier.presentVerified(fenced, verifier);
    try {
      return inTransaction(
          c -> {
            T result;
            if (admitAtCommit) {
              result = work.run(WorkConnection.wrap(c), token);
              requireOpenTransaction(c, token);
              admitAndCommit(c, token);
            } else {
              admit(c, token);
              result = work.run(WorkConnection.wrap(c), token);
              requireOpenTransaction(c, token);
              if (liveLeaseSql != null) {
                checkLiveLease(c, token);
              }
              c.commit();
            }
            return result;
          });
    } catch (SQLException e) {
      throw new ResourceAccessException(
          "fenced transaction for " + token + " failed and was rolled back: " + e.getMessage(), e);
    }
  }

  /** A transaction's body; it commits (by whichever statement) before it returns. */
  @FunctionalInterface
  private interface Body<T> {
    T run(Connection c) throws SQLException;
  }

  /**
   * Runs a body on a connection of its own with auto-commit off, after the table's shape check.
   * Any throwable, Errors and sneaky checked exceptions included, rolls back first: restoring
   * auto-commit on an open transaction would commit it (CONTRACT C16).
   */
  private <T> T inTransaction(Body<T> body) throws SQLException {
    try (Connection c = dataSource.getConnection()) {
      tableCheck.ensure(c);
      boolean autoCommit = c.getAutoCommit();
      c.setAutoCommit(false);
      boolean committed = false;
      try {
        T result = body.run(c);
        committed = true;
        return result;
      } catch (Throwable e) {
        rollback(c, e);
        throw e;
      } finally {
        if (committed) {
          c.setAutoCommit(autoCommit);
        } else {
          restoreAfterRollback(c, autoCommit);
        }
      }
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
      tableCheck.ensure(c);
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
      long highest = readMark(c, token.key()).orElse(0);
      if (highest > token.fence()) {
        throw new StaleFenceException(token, highest);
      }
      throw notIssued(token);
    }
  }

  private TokenVerificationException notIssued(FencingToken token) {
    return new TokenVerificationException(
        TokenVerificationException.Reason.NOT_ISSUED,
        "refused " + token + ": " + verifyTable + " never issued fence " + token.fence() + " to run "
            + token.runId() + " of " + token.key() + " (a forged or damaged token); nothing changed");
  }

  /**
   * Work that committed or rolled back the transaction itself, or turned auto-commit back on, has
   * left the admission's row lock: what follows would no longer be one transaction with it.
   */
  private static void requireOpenTransaction(Connection c, FencingToken token) throws SQLException {
    if (c.getAutoCommit()) {
      throw new IllegalStateException(
          "the work for " + token + " switched the connection to auto-commit; a fenced transaction"
              + " must be committed by FencedJdbcWriter, never by the work");
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
  private int bindAdmission(PreparedStatement ps, FencingToken token) throws SQLException {
    ps.setString(1, token.key().accountId());
    ps.setString(2, token.key().sessionId());
    ps.setLong(3, token.fence());
    ps.setObject(4, token.runId());
    if (verifyTable == null) {
      return 5;
    }
    return bindIssued(ps, token, 5);
  }

  /** Binds the online check (account, session, fence, fence, run id) from parameter {@code first}. */
  private static int bindIssued(PreparedStatement ps, FencingToken token, int first) throws SQLException {
    ps.setString(first, token.key().accountId());
    ps.setString(first + 1, token.key().sessionId());
    ps.setLong(first + 2, token.fence());
    ps.setLong(first + 3, token.fence());
    ps.setObject(first + 4, token.runId());
    return first + 5;
  }

  private boolean issued(Connection c, FencingToken token) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(issuedSql)) {
      bindIssued(ps, token, 1);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next();
      }
    }
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
      boolean wasIssued = issuedSql == null || issued(c, token);
      c.rollback();
      if (highest > token.fence()) {
        throw new StaleFenceException(token, highest);
      }
      if (!wasIssued) {
        throw notIssued(token);
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

  private static void rollback(Connection c, Throwable failure) {
    try {
      c.rollback();
    } catch (SQLException | RuntimeException e) {
      failure.addSuppressed(e);
    }
  }

  /**
   * Turns auto-commit back on only on a connection whose transaction was rolled back; if the
   * rollback failed, the connection is closed unusable instead (a pool then discards it), so
   * nothing can commit what the rollback should have undone.
   */
  private static void restoreAfterRollback(Connection c, boolean autoCommit) throws SQLException {
    if (!autoCommit) {
      return;
    }
    try {
      c.rollback();
      c.setAutoCommit(true);
    } catch (SQLException e) {
      try {
        c.abort(Runnable::run);
      } catch (SQLException | RuntimeException ignored) {
        e.addSuppressed(ignored);
      }
      throw e;
    }
  }

  /**
   * Sets a key's high-water mark, for recovery after a forged token or a leaked key raised it
   * beyond the reach of honest runs (docs/security.md). Allowed only to operators the writer's
   * {@link AdminPolicy} names. One transaction locks the key's row, sets (or, for 0, deletes) it
   * and appends the audit record to {@code <table>_audit}. From the shell: {@code
   * io.leasehold.adapters.admin.ResetMarkCommand}.
   *
   * @param key the key
   * @param newMark the new mark; 0 removes it
   * @param operator who resets it
   * @param reason why
   * @return the recorded reset
   * @throws AdminDeniedException if the policy refuses the operator; nothing changed
   * @throws IllegalArgumentException if an argument is invalid; nothing changed
   * @throws ResourceAccessException if the database fails; rolled back
   */
  public MarkReset resetMark(LeaseKey key, long newMark, String operator, String reason) {
    MarkReset.checkRequest(adminPolicy, key, newMark, operator, reason);
    try {
      return inTransaction(c -> {
        long previous;
        try (PreparedStatement ps = c.prepareStatement(lockMarkSql)) {
          ps.setString(1, key.accountId());
          ps.setString(2, key.sessionId());
          try (ResultSet rs = ps.executeQuery()) {
            previous = rs.next() ? rs.getLong(1) : 0;
          }
        }
        try (PreparedStatement ps = c.prepareStatement(newMark == 0 ? deleteMarkSql : setMarkSql)) {
          ps.setString(1, key.accountId());
          ps.setString(2, key.sessionId());
          if (newMark != 0) {
            ps.setLong(3, newMark);
          }
          ps.executeUpdate();
        }
        java.time.Instant at;
        try (PreparedStatement ps = c.prepareStatement(auditResetSql)) {
          ps.setString(1, operator);
          ps.setString(2, key.accountId());
          ps.setString(3, key.sessionId());
          ps.setLong(4, previous);
          ps.setLong(5, newMark);
          ps.setString(6, reason);
          try (ResultSet rs = ps.executeQuery()) {
            rs.next();
            at = rs.getObject(1, java.time.OffsetDateTime.class).toInstant();
          }
        }
        c.commit();
        return new MarkReset(key, previous, newMark, operator, reason, at);
      });
    } catch (SQLException e) {
      throw new ResourceAccessException("could not reset the mark of " + key + ": " + e.getMessage(), e);
    }
  }

  /** Options of a {@link FencedJdbcWriter}. Not thread-safe. */
  public static final class Builder {
    private final DataSource dataSource;
    private HighWaterSchema schema = HighWaterSchema.defaults();
    private String leaseTable;
    private String verifyTable;
    private TokenVerifier verifier;
    private AdminPolicy adminPolicy = AdminPolicy.nobody();
    private Duration lockTimeout = Duration.ofSeconds(5);
    private String databaseSchema = "public";
    private boolean admitAtCommit;

    private Builder(DataSource dataSource) {
      if (dataSource == null) {
        throw new IllegalArgumentException("dataSource must not be null");
      }
      this.dataSource = dataSource;
    }

    private GuardListener listener = GuardListener.NONE;

    /**
     * Who hears each decision (resource kind {@value FencedJdbcWriter#RESOURCE}). Default {@link
     * GuardListener#NONE}.
     *
     * @param listener the listener
     * @return this builder
     */
    public Builder listener(GuardListener listener) {
      if (listener == null) {
        throw new IllegalArgumentException("listener must not be null");
      }
      this.listener = listener;
      return this;
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
     * Verifies tokens with a verifier (CONTRACT C15), before the transaction opens. One of this
     * and {@link #verifyAgainstLeaseTable(String)} is required.
     *
     * @param verifier the verifier, for example {@code TokenVerifier.signedBy(keys)}
     * @return this builder
     */
    public Builder verifier(TokenVerifier verifier) {
      if (verifier == null) {
        throw new IllegalArgumentException("verifier must not be null");
      }
      this.verifier = verifier;
      return this;
    }

    /**
     * Verifies tokens online against the lease table in this same database, inside the admission
     * statement (no extra round trip): a fence the table never issued for the key is refused.
     * One of this and {@link #verifier(TokenVerifier)} is required.
     *
     * @param leaseTable the lease table's name (lease-core's default is {@code leasehold_lease}),
     *     optionally schema-qualified
     * @return this builder
     */
    public Builder verifyAgainstLeaseTable(String leaseTable) {
      if (leaseTable == null || !HighWaterSchema.QUALIFIED_IDENTIFIER.matcher(leaseTable).matches()) {
        throw new IllegalArgumentException(
            "lease table name '" + leaseTable + "' is not a lower-case SQL identifier (optionally"
                + " schema-qualified) of at most 40 characters each");
      }
      this.verifyTable = leaseTable;
      return this;
    }

    /**
     * The PostgreSQL schema of the high-water table (and of the lease table, unless its name is
     * qualified). Every statement names it, so a table of the same name earlier on the
     * connection's {@code search_path} is never used. Default {@code public}.
     *
     * @param databaseSchema a lower-case identifier
     * @return this builder
     */
    public Builder databaseSchema(String databaseSchema) {
      if (databaseSchema == null || !HighWaterSchema.IDENTIFIER.matcher(databaseSchema).matches()) {
        throw new IllegalArgumentException(
            "database schema '" + databaseSchema + "' is not a lower-case SQL identifier of at most 40 characters");
      }
      this.databaseSchema = databaseSchema;
      return this;
    }

    /**
     * Who may reset marks. Default {@link AdminPolicy#nobody()}.
     *
     * @param adminPolicy the policy
     * @return this builder
     */
    public Builder adminPolicy(AdminPolicy adminPolicy) {
      if (adminPolicy == null) {
        throw new IllegalArgumentException("adminPolicy must not be null");
      }
      this.adminPolicy = adminPolicy;
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
     * @throws IllegalStateException if no verification was chosen, or both
     */
    public FencedJdbcWriter build() {
      if ((verifier == null) == (verifyTable == null)) {
        throw new IllegalStateException(
            "choose exactly one way to verify tokens: verifier(TokenVerifier.signedBy(keys)),"
                + " verifyAgainstLeaseTable(\"leasehold_lease\"), or"
                + " verifier(TokenVerifier.trustEveryWriter()) if every writer is trusted code");
      }
      return new FencedJdbcWriter(this);
    }
  }
}
