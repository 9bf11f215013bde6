package io.leasehold.adapters.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.leasehold.adapters.ResourceAccessException;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.GuardListener;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.LeaseLostException;
import io.leasehold.fencing.StaleFenceException;
import io.leasehold.fencing.TokenVerifier;
import io.leasehold.lease.AcquireResult;
import io.leasehold.lease.Lease;
import io.leasehold.lease.LeaseSchema;
import io.leasehold.lease.LeaseStore;
import io.leasehold.testing.PostgresServer;
import io.leasehold.testing.RowLocks;
import io.leasehold.testing.TestDatabase;
import io.leasehold.testing.TestDatabaseExtension;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.assertj.core.api.AbstractStringAssert;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The database writer beyond the guard contract: rollback, strict mode, schema. */
class FencedJdbcWriterTest {
  @RegisterExtension
  static final TestDatabaseExtension db =
      TestDatabaseExtension.withTemplate(
          "highwater_lease",
          ds -> {
            JdbcTestSchema.apply(ds);
            LeaseSchema.defaults().apply(ds);
          });

  private static int registerRows(LeaseKey key) throws SQLException {
    try (Connection c = db.database().newConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT count(*) FROM register WHERE account_id = ? AND session_id = ?")) {
      ps.setString(1, key.accountId());
      ps.setString(2, key.sessionId());
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getInt(1);
      }
    }
  }

  /** Work that sends these statements, in order, in the writer's transaction. */
  private static JdbcWork<Void> statements(String... sql) {
    return (c, t) -> {
      try (Statement s = c.createStatement()) {
        for (String statement : sql) {
          s.execute(statement);
        }
      }
      return null;
    };
  }

  /**
   * Asserts that {@code call} gave up after the configured 100 ms lock timeout (PostgreSQL's
   * 55P03), and returns its message for more.
   */
  private static AbstractStringAssert<?> assertGivesUpAtTheLockTimeout(ThrowingCallable call) {
    Throwable thrown = catchThrowable(call);
    assertThat(thrown)
        .isInstanceOf(ResourceAccessException.class)
        .hasMessageContaining("waited 100 ms (lockTimeout)")
        .cause()
        .isInstanceOfSatisfying(
            SQLException.class, e -> assertThat(e.getSQLState()).isEqualTo("55P03"));
    return assertThat(thrown.getMessage());
  }

  @ParameterizedTest(name = "admit at commit: {0}")
  @ValueSource(booleans = {false, true})
  void failingWorkRollsBackTheMarkToo(boolean atCommit) throws Exception {
    LeaseKey key = LeaseKey.of("acct", "rollback-" + atCommit);
    FencedJdbcWriter writer = JdbcTestSchema.trustingWriter(db.dataSource(), atCommit).build();
    RegisterHarness register = new RegisterHarness(db.dataSource());
    register.write(key, new FencingToken(key, 3, UUID.randomUUID()), "three");
    assertThatThrownBy(
            () ->
                writer.write(
                    new FencingToken(key, 9, UUID.randomUUID()),
                    statements("DELETE FROM register", "SELECT no_such_column FROM register")))
        .isInstanceOf(ResourceAccessException.class)
        .hasMessageContaining("rolled back");
    assertThat(writer.highWaterMark(key)).hasValue(3);
    assertThat(register.value(key)).contains("three");
  }

  /**
   * Red team 47, B7 and B2: work that throws an IllegalArgumentException after admission is rolled
   * back and heard as FAIL_CLOSED, like any work failing before its commit (it used to be taken for
   * the caller's error and not heard); a listener that throws an Error never fails a committed
   * write.
   */
  @ParameterizedTest(name = "admit at commit: {0}")
  @ValueSource(booleans = {false, true})
  void workThatThrowsIsHeardAndABrokenListenerFailsNothing(boolean atCommit) throws Exception {
    LeaseKey key = LeaseKey.of("acct", "work-iae-" + atCommit);
    List<GuardListener.Decision> heard = new CopyOnWriteArrayList<>();
    FencedJdbcWriter writer =
        JdbcTestSchema.trustingWriter(db.dataSource(), atCommit)
            .listener((resource, decision) -> heard.add(decision))
            .build();
    RegisterHarness register = new RegisterHarness(db.dataSource());
    register.write(key, new FencingToken(key, 3, UUID.randomUUID()), "three");
    String deleteOwnRow = "DELETE FROM register WHERE session_id = '" + key.sessionId() + "'";
    IllegalArgumentException bad = new IllegalArgumentException("the work's own bad input");
    assertThatThrownBy(
            () ->
                writer.write(
                    new FencingToken(key, 9, UUID.randomUUID()),
                    (c, t) -> {
                      statements(deleteOwnRow).run(c, t);
                      throw bad;
                    }))
        .isSameAs(bad);
    assertThat(heard).containsExactly(GuardListener.Decision.FAIL_CLOSED);
    assertThat(writer.highWaterMark(key)).hasValue(3);
    assertThat(register.value(key)).contains("three");

    FencedJdbcWriter broken =
        JdbcTestSchema.trustingWriter(db.dataSource(), atCommit)
            .listener(
                (resource, decision) -> {
                  throw new AssertionError("broken listener");
                })
            .build();
    broken.write(new FencingToken(key, 9, UUID.randomUUID()), statements(deleteOwnRow));
    assertThat(broken.highWaterMark(key)).hasValue(9);
    assertThat(register.value(key)).isEmpty();
  }

  /**
   * The difference between the modes: a run whose lease expired but that nobody replaced still has
   * the highest fence. The plain writer admits its late write; the strict one refuses it.
   */
  @ParameterizedTest(name = "admit at commit: {0}")
  @ValueSource(booleans = {false, true})
  void strictModeRefusesAnExpiredRunThatNobodyReplaced(boolean atCommit) throws Exception {
    LeaseKey key = LeaseKey.of("acct", "strict-" + atCommit);
    try (LeaseStore store = JdbcTestSchema.leaseStore(db.dataSource())) {
      Lease lease = ((AcquireResult.Acquired) store.tryAcquire(key, "acct")).lease();
      FencingToken token = lease.token();
      FencedJdbcWriter strict =
          JdbcTestSchema.trustingWriter(db.dataSource(), atCommit)
              .strictLeaseTable("leasehold_lease")
              .build();
      FencedJdbcWriter plain = JdbcTestSchema.trustingWriter(db.dataSource(), atCommit).build();
      JdbcWork<Void> insert =
          (c, t) -> {
            try (PreparedStatement ps =
                c.prepareStatement(
                    "INSERT INTO register VALUES (?, ?, ?) ON CONFLICT (account_id, session_id)"
                        + " DO UPDATE SET value = EXCLUDED.value")) {
              ps.setString(1, t.key().accountId());
              ps.setString(2, t.key().sessionId());
              ps.setString(3, "fence " + t.fence());
              ps.executeUpdate();
            }
            return null;
          };

      strict.write(token, insert);
      assertThat(registerRows(key)).isEqualTo(1);

      db.database()
          .execute(
              "UPDATE leasehold_lease SET expires_at = clock_timestamp() - interval '1 ms'"
                  + " WHERE session_id = '"
                  + key.sessionId()
                  + "'");
      db.database().execute("DELETE FROM register WHERE session_id = '" + key.sessionId() + "'");

      assertThatThrownBy(() -> strict.write(token, insert))
          .isInstanceOf(LeaseLostException.class)
          .hasMessageContaining("no live lease");
      assertThat(registerRows(key)).as("strict mode rolled the write back").isZero();

      plain.write(token, insert);
      assertThat(registerRows(key)).as("the fence alone admits the expired run").isEqualTo(1);
    }
  }

  /**
   * Admission at commit runs a stale writer's work, then refuses it in the commit's round trip: the
   * work is rolled back, the mark is untouched, and the exception names the mark.
   */
  @Test
  void atCommitAStaleWritersWorkIsRolledBack() throws Exception {
    LeaseKey key = LeaseKey.of("acct", "stale-at-commit");
    RegisterHarness register = new RegisterHarness(db.dataSource(), true);
    register.write(key, new FencingToken(key, 7, UUID.randomUUID()), "seven");
    FencedJdbcWriter writer = JdbcTestSchema.trustingWriter(db.dataSource(), true).build();
    AtomicBoolean ran = new AtomicBoolean();
    assertThatThrownBy(
            () ->
                writer.write(
                    new FencingToken(key, 6, UUID.randomUUID()),
                    (c, t) -> {
                      ran.set(true);
                      try (Statement s = c.createStatement()) {
                        s.execute("DELETE FROM register WHERE session_id = 'stale-at-commit'");
                      }
                      return null;
                    }))
        .isInstanceOfSatisfying(
            StaleFenceException.class, e -> assertThat(e.highestFence()).isEqualTo(7));
    assertThat(ran).isTrue();
    assertThat(register.value(key)).contains("seven");
    assertThat(writer.highWaterMark(key)).hasValue(7);
    // The connection went back to the pool in a usable state: the next write commits.
    register.write(key, new FencingToken(key, 8, UUID.randomUUID()), "eight");
    assertThat(register.value(key)).contains("eight");
  }

  /**
   * The admission waits for another writer of the key for at most the lock timeout: a held mark row
   * makes the write fail fast with lock_not_available, and nothing is written.
   */
  @ParameterizedTest(name = "admit at commit: {0}")
  @ValueSource(booleans = {false, true})
  @Timeout(
      value = 30,
      threadMode = Timeout.ThreadMode.SEPARATE_THREAD) // without the timeout it would wait for ever
  void theAdmissionWaitsAtMostTheLockTimeout(boolean atCommit) throws Exception {
    LeaseKey key = LeaseKey.of("acct", "locked-" + atCommit);
    RegisterHarness register = new RegisterHarness(db.dataSource(), atCommit);
    register.write(key, new FencingToken(key, 1, UUID.randomUUID()), "one");
    FencedJdbcWriter writer =
        JdbcTestSchema.trustingWriter(db.dataSource(), atCommit)
            .lockTimeout(Duration.ofMillis(100))
            .build();
    try (Connection holder =
        RowLocks.hold(
            db.database().newConnection(),
            "SELECT 1 FROM leasehold_high_water WHERE session_id = ? FOR UPDATE",
            key.sessionId())) {
      // The configured 100 ms, not the 5 s default, was in force, and the error says for what.
      assertGivesUpAtTheLockTimeout(
              () ->
                  writer.write(
                      new FencingToken(key, 2, UUID.randomUUID()),
                      statements(
                          "DELETE FROM register WHERE session_id = '" + key.sessionId() + "'")))
          .contains("waited 100 ms (lockTimeout) for a row lock")
          .contains("the mark row of " + key);
      holder.rollback();
    }
    assertThat(register.value(key)).contains("one");
    assertThat(writer.highWaterMark(key)).hasValue(1);
  }

  /**
   * CONTRACT C21 on the writer's other ways in: {@code admit(token)} and {@code resetMark} read the
   * mark under its row lock before anything else, and a table lock held elsewhere (a migration's
   * ALTER TABLE) is taken when a statement is bound, reads included. Each ends at the lock timeout;
   * before, the timeout was set inside the admission statement only, so these waited as long as the
   * lock was held.
   */
  @ParameterizedTest
  @ValueSource(
      strings = {
        "admit under a row lock",
        "reset under a row lock",
        "write under a table lock",
        "write at commit under a table lock",
        "mark read under a table lock"
      })
  @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void everyWayInWaitsAtMostTheLockTimeout(String way) throws Exception {
    LeaseKey key = LeaseKey.of("acct", "locked-" + way.replace(' ', '-'));
    boolean atCommit = way.contains("at commit");
    RegisterHarness register = new RegisterHarness(db.dataSource(), atCommit);
    register.write(key, new FencingToken(key, 1, UUID.randomUUID()), "one");
    FencedJdbcWriter writer =
        JdbcTestSchema.trustingWriter(db.dataSource(), atCommit)
            .lockTimeout(Duration.ofMillis(100))
            .adminPolicy(io.leasehold.fencing.AdminPolicy.operators(java.util.Set.of("ops")))
            .build();
    try (Connection holder = db.database().newConnection()) {
      holder.setAutoCommit(false);
      try (java.sql.Statement st = holder.createStatement()) {
        if (way.contains("table lock")) {
          st.execute("LOCK TABLE leasehold_high_water IN ACCESS EXCLUSIVE MODE");
        } else {
          st.executeQuery(
              "SELECT 1 FROM leasehold_high_water WHERE session_id = '"
                  + key.sessionId()
                  + "' FOR UPDATE");
        }
      }
      FencingToken next = new FencingToken(key, 2, UUID.randomUUID());
      ThrowingCallable call =
          switch (way) {
            case "admit under a row lock" -> () -> writer.admit(next);
            case "reset under a row lock" -> () -> writer.resetMark(key, 5, "ops", "test");
            case "mark read under a table lock" -> () -> writer.highWaterMark(key);
            default ->
                () ->
                    writer.write(
                        next,
                        statements(
                            "DELETE FROM register WHERE session_id = '" + key.sessionId() + "'"));
          };
      assertGivesUpAtTheLockTimeout(call);
      holder.rollback();
    }
    assertThat(register.value(key)).contains("one");
    assertThat(writer.highWaterMark(key)).hasValue(1);
  }

  @Test
  void badOptionsAreRefused() {
    assertThatThrownBy(
            () -> FencedJdbcWriter.builder(null).verifier(TokenVerifier.trustEveryWriter()))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(
            () ->
                FencedJdbcWriter.builder(db.dataSource())
                    .verifier(TokenVerifier.trustEveryWriter())
                    .strictLeaseTable("lease; drop"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new HighWaterSchema("Bad-Name"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(
            () ->
                FencedJdbcWriter.builder(db.dataSource())
                    .verifier(TokenVerifier.trustEveryWriter())
                    .build()
                    .write(null, (c, t) -> null))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void changelogAndPlainSqlCreateTheSameTable() throws Exception {
    String catalog =
        "SELECT string_agg(column_name || ' ' || data_type || ' ' || is_nullable, ', ' ORDER BY column_name)"
            + " || ' / ' || (SELECT string_agg(pg_get_constraintdef(oid), ', ' ORDER BY conname)"
            + "   FROM pg_constraint WHERE conrelid = 'leasehold_high_water'::regclass)"
            + " FROM information_schema.columns WHERE table_name = 'leasehold_high_water'";
    try (TestDatabase a = PostgresServer.shared().createDatabase(null, ds -> {});
        TestDatabase b = PostgresServer.shared().createDatabase(null, ds -> {})) {
      HighWaterSchema.defaults().apply(a.dataSource());
      b.execute(HighWaterSchema.defaults().sqlScript());
      assertThat(query(a, catalog)).isEqualTo(query(b, catalog)).contains("fence bigint NO");
    }
  }

  private static String query(TestDatabase d, String sql) throws SQLException {
    try (Connection c = d.newConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getString(1);
    }
  }
}
