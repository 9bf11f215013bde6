package io.leasehold.adapters.jdbc;

import io.leasehold.adapters.ResourceAccessException;
import io.leasehold.adapters.internal.AnswerBound;
import io.leasehold.adapters.internal.SqlMarkStore;
import io.leasehold.adapters.internal.SqlNames;
import io.leasehold.fencing.AdminDeniedException;
import io.leasehold.fencing.AdminPolicy;
import io.leasehold.fencing.Admission;
import io.leasehold.fencing.FenceGuard;
import io.leasehold.fencing.Fenced;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.GuardBuilder;
import io.leasehold.fencing.GuardListener;
import io.leasehold.fencing.GuardOptions;
import io.leasehold.fencing.GuardPipeline;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.LeaseLostException;
import io.leasehold.fencing.MarkReset;
import io.leasehold.fencing.StaleFenceException;
import io.leasehold.fencing.TokenVerificationException;
import io.leasehold.fencing.TokenVerifier;
import io.leasehold.fencing.internal.Arguments;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
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
 * <p>The transaction's first statement is a conditional UPSERT on the key's row of the high-water
 * table ({@link HighWaterSchema}): it raises the mark, or returns nothing when the fence is stale.
 * Either way it holds the row lock until the transaction ends, so writers of one key are serialized
 * and no lower fence can commit after a higher one (also across processes: the lock is the
 * database's). A stale token rolls everything back and throws {@link StaleFenceException}; nothing
 * the work did is kept.
 *
 * <h2>Verification</h2>
 *
 * Every writer is built with an explicit choice (CONTRACT C15): a {@link TokenVerifier} (signed
 * tokens, or {@link TokenVerifier#trustEveryWriter()}) checked before the transaction opens, or
 * {@link Builder#verifyAgainstLeaseTable(String)} when the resource database is also the lease
 * database: the admission statement itself then admits a token only while its run holds the lease,
 * with no extra round trip. It refuses what {@link LeaseTableVerifier} refuses, with the same
 * reasons: a fence the table never issued for the key ({@code NOT_ISSUED}), and a genuine token
 * whose run released its lease, let it expire or was superseded by a newer run ({@code EXPIRED}; a
 * superseded run whose successor already wrote here is refused as stale first). Either way a
 * refused token changes nothing and throws {@link TokenVerificationException}.
 *
 * <h2>Strict mode</h2>
 *
 * The fence alone refuses a run once a <em>newer</em> run has written here. A run whose lease
 * expired but that nobody has replaced yet still has the highest fence, so its late write would be
 * admitted. When the resource database is also the lease database, {@link
 * Builder#strictLeaseTable(String)} adds, as the transaction's last statement, a check that the run
 * still holds a live lease (key, run id and fence match, not released, not expired by {@code
 * clock_timestamp()}), taken with {@code FOR SHARE} so the lease cannot change until the commit;
 * otherwise everything rolls back and {@link LeaseLostException} is thrown. The check briefly
 * delays a renewal or takeover of the same lease by the length of the commit.
 *
 * <h2>Admission at commit</h2>
 *
 * By default the admission is the transaction's first statement, which costs one round trip of its
 * own and serializes the whole transactions of a key's writers. {@link
 * Builder#admitAtCommit(boolean)} sends it instead after the work, in one round trip with the
 * COMMIT (and strict mode's check): a refused admission raises an error in that same pipeline, so
 * PostgreSQL skips the COMMIT and everything rolls back. Stale writes are refused just the same
 * (the mark's row lock is held from the admission to the commit, so commits still happen in fence
 * order), but the work of two writers of one key may run at the same time: a stale writer's work
 * runs and is then rolled back, and a newer writer's reads are not ordered after an older writer's
 * admitted commit. Use it when the work does not read what another writer of the key writes, or
 * locks what it reads.
 *
 * <h2>As a {@link FenceGuard}</h2>
 *
 * {@link #admit} runs the admission alone, in a transaction of its own (with strict mode's check),
 * for a caller that wants to shut older runs out before it has anything to write. Mark resets are
 * recorded in {@code <table>_audit} and dated by the database's clock; the builder's clock is not
 * used.
 *
 * <p>Thread-safe.
 */
public final class FencedJdbcWriter implements FenceGuard {
  /** The resource kind this guard reports to its {@link GuardListener}. */
  public static final String RESOURCE = "jdbc";

  private final GuardOptions options;

  /**
   * Present, verify (online verification: nothing before the admission statement), step, report.
   */
  private final GuardPipeline<Void> pipeline;

  private final HighWaterSql sql;
  private final JdbcTransactions transactions;
  private final boolean admitAtCommit;

  /** For messages: the lease tables of online verification and of strict mode, or null. */
  private final String verifyTable;

  private final String leaseTable;

  private static String qualify(String databaseSchema, String table) {
    return table == null || table.indexOf('.') >= 0 ? table : databaseSchema + "." + table;
  }

  private FencedJdbcWriter(Builder b, GuardOptions options) {
    this.options = options;
    this.pipeline = GuardPipeline.unscoped(options);
    // Every name schema-qualified: a look-alike table earlier on the search_path is never used.
    this.leaseTable = qualify(b.databaseSchema, b.leaseTable);
    this.verifyTable = qualify(b.databaseSchema, b.verifyTable);
    this.admitAtCommit = b.admitAtCommit;
    String table = b.databaseSchema + "." + b.schema.table();
    this.sql = new HighWaterSql(table, verifyTable, leaseTable, b.lockTimeout);
    this.transactions = new JdbcTransactions(b.dataSource, table, b.lockTimeout, b.citus);
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
   * @throws ResourceAccessException if the database or the work fails; rolled back. Also when the
   *     work returned normally after an SQL error, which aborted the transaction ("swallowed an SQL
   *     error": rethrow it, or roll back to a savepoint set before it). Also when the database
   *     gives no answer within twice the lock timeout plus 1 s (a stopped or hung server; the work
   *     itself runs with the connection's own network timeout): rolled back, or, when it was the
   *     COMMIT that got no answer, with the outcome unknown (the message says "outcome unknown":
   *     the write may have committed; read the mark or the rows before trying again)
   */
  public <T> T write(Fenced fenced, JdbcWork<T> work) {
    Arguments.required(work, "work");
    return pipeline.runForKey(fenced, call -> write(call, work));
  }

  /**
   * The writer's step: where the admission goes in the transaction is its own choice, first (the
   * key's writers serialized) or with the COMMIT (one round trip fewer).
   */
  private <T> T write(GuardPipeline.Call<Void> call, JdbcWork<T> work) {
    FencingToken token = call.token();
    // Whatever the work throws from here, an IllegalArgumentException too, rolls the transaction
    // back: the listener hears FAIL_CLOSED, as for any work failing before its commit.
    call.effectRuns();
    try {
      return transactions.runAround(
          (c, callers) -> {
            T result;
            // The work is the caller's: it runs with the caller's network timeout, the writer's
            // own statements under the writer's bound.
            boolean citus = transactions.onCitus(c);
            if (admitAtCommit && !citus) {
              result = callers.run(t -> work.run(WorkConnection.wrap(t), token));
              WorkConnection.requireOpenTransaction(c, token);
              AnswerBound.commit(() -> admitAndCommit(c, token));
            } else {
              // Citus: no pipeline, its expiry check would read the worker's clock
              if (!admitAtCommit) {
                sql.marks().admitFirst(c, token);
              }
              result = callers.run(t -> work.run(WorkConnection.wrap(t), token));
              WorkConnection.requireOpenTransaction(c, token);
              if (admitAtCommit) {
                sql.marks().admitFirst(c, token);
              }
              sql.checkLease(c, token, citus);
              AnswerBound.commit(c::commit);
            }
            return result;
          });
    } catch (SQLException e) {
      throw rolledBack("fenced transaction for", token, e);
    }
  }

  /**
   * The error of {@code token}'s transaction that failed, rolled back, with any lock it waited for.
   */
  private ResourceAccessException rolledBack(String what, FencingToken token, SQLException e) {
    return new ResourceAccessException(
        what
            + " "
            + token
            + (e instanceof AnswerBound.CommitOutcomeUnknown
                ? " failed at its COMMIT, outcome unknown: "
                : " failed and was rolled back: ")
            + e.getMessage()
            + sql.waitedFor(token.key(), e),
        e);
  }

  /**
   * Admits a token without work: raises the key's mark in a transaction of its own (strict mode:
   * only while the run holds a live lease), so that from now on no lower fence commits here.
   *
   * @param fenced the run's lease or token
   * @return the admission, with the mark before it
   * @throws StaleFenceException if a newer run has been admitted for the key; nothing changed
   * @throws TokenVerificationException if the token fails verification; nothing changed
   * @throws LeaseLostException if the lease is known lost, or in strict mode not live; nothing
   *     changed
   * @throws ResourceAccessException if the database fails; rolled back
   */
  @Override
  public Admission admit(Fenced fenced) {
    return pipeline.runForKey(fenced, call -> admitAlone(call.token()));
  }

  private Admission admitAlone(FencingToken token) {
    try {
      return transactions.run(
          c -> {
            Admission admission = SqlMarkStore.sqlFailures(() -> sql.marks().admit(c, token));
            sql.checkLease(c, token, transactions.onCitus(c));
            AnswerBound.commit(c::commit);
            return admission;
          });
    } catch (SQLException e) {
      throw rolledBack("admission of", token, e);
    }
  }

  /**
   * The highest fence admitted for a key.
   *
   * @param key the lease key
   * @return the mark, or empty if none
   * @throws ResourceAccessException if the database fails
   */
  @Override
  public OptionalLong highWaterMark(LeaseKey key) {
    Arguments.required(key, "key");
    try {
      return transactions.read(c -> SqlMarkStore.sqlFailures(() -> sql.marks().read(c, key)));
    } catch (SQLException e) {
      throw new ResourceAccessException(
          "could not read the high-water mark of "
              + key
              + ": "
              + e.getMessage()
              + sql.waitedFor(key, e),
          e);
    }
  }

  private void admitAndCommit(Connection c, FencingToken token) throws SQLException {
    try {
      sql.admitAndCommit(c, token);
    } catch (SQLException e) {
      if (!HighWaterSql.REFUSED_IN_PIPELINE.equals(e.getSQLState())) {
        throw e;
      }
      // Refused: the pipeline stopped before its COMMIT. Roll back, then say which check it was.
      c.rollback();
      Optional<RuntimeException> refusal = sql.marks().refusal(c, token);
      c.rollback();
      if (refusal.isPresent()) {
        throw refusal.get();
      }
      if (sql.strict()) {
        throw new LeaseLostException(token, "no live lease in " + leaseTable + " at commit");
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
  @Override
  public MarkReset resetMark(LeaseKey key, long newMark, String operator, String reason) {
    options.checkReset(key, newMark, operator, reason);
    try {
      return transactions.run(
          c -> {
            MarkReset reset =
                SqlMarkStore.sqlFailures(
                    () -> sql.marks().reset(c, key, newMark, operator, reason, null));
            AnswerBound.commit(c::commit);
            return reset;
          });
    } catch (SQLException e) {
      throw new ResourceAccessException(
          "could not reset the mark of " + key + ": " + e.getMessage() + sql.waitedFor(key, e), e);
    }
  }

  /**
   * Every mark reset recorded in {@code <table>_audit}, oldest first.
   *
   * @return the resets
   * @throws ResourceAccessException if the database fails
   */
  @Override
  public List<MarkReset> markResets() {
    try {
      return transactions.read(c -> SqlMarkStore.sqlFailures(() -> sql.marks().resets(c)));
    } catch (SQLException e) {
      throw new ResourceAccessException(
          "could not read the mark resets: " + e.getMessage() + sql.bound().waitedFor(e), e);
    }
  }

  /**
   * Options of a {@link FencedJdbcWriter}: the shared ones of {@link GuardBuilder} (the listener
   * hears resource kind {@value FencedJdbcWriter#RESOURCE}; the database's clock dates mark
   * resets), the tables, the lock timeout and admission at commit. Not thread-safe.
   */
  public static final class Builder extends GuardBuilder<Builder> {
    private final DataSource dataSource;
    private HighWaterSchema schema = HighWaterSchema.defaults();
    private String leaseTable;
    private String verifyTable;
    private Duration lockTimeout = Duration.ofSeconds(5);
    private String databaseSchema = "public";
    private boolean admitAtCommit;
    private Boolean citus; // null: asked; set by tests that run the Citus form on PostgreSQL

    private Builder(DataSource dataSource) {
      this.dataSource = Arguments.required(dataSource, "dataSource");
    }

    /**
     * The high-water table. Default {@link HighWaterSchema#defaults()}.
     *
     * @param schema the table
     * @return this builder
     */
    public Builder schema(HighWaterSchema schema) {
      this.schema = Arguments.required(schema, "schema");
      return this;
    }

    /**
     * Enables strict mode: the resource database is the lease database, and a write commits only if
     * the run still holds a live lease in this table. Default off.
     *
     * @param leaseTable the lease table's name (lease-core's default is {@code leasehold_lease})
     * @return this builder
     */
    public Builder strictLeaseTable(String leaseTable) {
      this.leaseTable = SqlNames.identifier(leaseTable, "lease table name");
      return this;
    }

    /**
     * Verifies tokens online against the lease table in this same database, inside the admission
     * statement (no extra round trip): a token is admitted only while its run holds the lease (the
     * key's row names its fence and run, not released, not expired by the database's clock), as
     * {@link LeaseTableVerifier} admits it. Add {@link #strictLeaseTable(String)} to hold the lease
     * row until the commit. One of this and {@link #verifier(TokenVerifier)} (checked before the
     * transaction opens) is required.
     *
     * @param leaseTable the lease table's name (lease-core's default is {@code leasehold_lease}),
     *     optionally schema-qualified
     * @return this builder
     */
    public Builder verifyAgainstLeaseTable(String leaseTable) {
      this.verifyTable = SqlNames.qualifiedIdentifier(leaseTable, "lease table name");
      return this;
    }

    /**
     * The PostgreSQL schema of the high-water table (and of the lease table, unless its name is
     * qualified). Every statement names it, so a table of the same name earlier on the connection's
     * {@code search_path} is never used. Default {@code public}.
     *
     * @param databaseSchema a lower-case identifier
     * @return this builder
     */
    public Builder databaseSchema(String databaseSchema) {
      this.databaseSchema = SqlNames.identifier(databaseSchema, "database schema");
      return this;
    }

    /**
     * How long the writer waits for a lock: another writer's of the same key, or a lock on the
     * whole high-water table (a migration); past it the call fails with {@link
     * io.leasehold.adapters.ResourceAccessException} naming what it waited for. Every wait in the
     * writer's own transactions is bounded by it, and so is the work's in its transaction once the
     * admission ran (with {@code admitAtCommit(true)} the work runs before it, under the
     * connection's own setting). On a Citus coordinator it also bounds the waits on the workers:
     * each transaction then starts with {@code SET LOCAL}, which Citus passes on
     * (docs/scale-out.md). Default 5 s.
     *
     * @param lockTimeout from 1 ms to 1 h
     * @return this builder
     */
    public Builder lockTimeout(Duration lockTimeout) {
      if (lockTimeout == null
          || lockTimeout.toMillis() < 1
          || lockTimeout.compareTo(Duration.ofHours(1)) > 0) {
        throw new IllegalArgumentException("lockTimeout must be between 1 ms and 1 h");
      }
      this.lockTimeout = lockTimeout;
      return this;
    }

    /**
     * Sends the admission after the work, in one round trip with the COMMIT, instead of as the
     * transaction's first statement: one round trip fewer per transaction, but writers of one key
     * are no longer serialized while their work runs (see the class documentation). Default false.
     *
     * @param admitAtCommit true to admit at commit
     * @return this builder
     */
    public Builder admitAtCommit(boolean admitAtCommit) {
      this.admitAtCommit = admitAtCommit;
      return this;
    }

    Builder citusForm() {
      this.citus = true;
      return this;
    }

    /**
     * Builds the writer. No connection is opened here.
     *
     * @return the writer
     * @throws IllegalStateException if no verification was chosen, or both
     */
    public FencedJdbcWriter build() {
      if (hasVerifier() == (verifyTable != null)) {
        throw new IllegalStateException(
            "choose exactly one way to verify tokens: verifier(TokenVerifier.signedBy(keys)),"
                + " verifyAgainstLeaseTable(\"leasehold_lease\"), or"
                + " verifier(TokenVerifier.trustEveryWriter()) if every writer is trusted code");
      }
      String online = verifyTable;
      GuardOptions options =
          verifyTable == null ? options(RESOURCE) : options(RESOURCE, new InStatement(online));
      return new FencedJdbcWriter(this, options);
    }
  }

  /**
   * The verification of {@link Builder#verifyAgainstLeaseTable}: done by the admission statement
   * itself, so nothing to do before it but refuse a null token.
   */
  private record InStatement(String leaseTable) implements TokenVerifier {
    @Override
    public void verify(FencingToken token) {
      Arguments.required(token, "token");
    }

    @Override
    public String toString() {
      return "verified in the admission statement against " + leaseTable;
    }
  }
}
