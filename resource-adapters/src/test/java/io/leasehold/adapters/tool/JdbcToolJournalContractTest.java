package io.leasehold.adapters.tool;

import static io.leasehold.adapters.tool.TestTools.trustingExecutor;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.leasehold.adapters.FencedResourceContract;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.TokenVerifier;
import io.leasehold.testing.TestDatabaseExtension;
import io.leasehold.testkit.GuardHarness;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The guard contract for the tool executor on the PostgreSQL journal (the same suite as the file
 * journal), plus its own cases: the idempotency key's reservation by the unique index, and calls in
 * doubt seen from a second executor, as after a restart.
 */
class JdbcToolJournalContractTest extends FencedResourceContract
    implements io.leasehold.testkit.CrossProcessGuardContract,
        io.leasehold.testkit.ThrownErrorContract,
        io.leasehold.testkit.ScopeAndBoundsContract {
  @RegisterExtension
  static final TestDatabaseExtension db =
      TestDatabaseExtension.withTemplate(
          "tool_journal", ds -> ToolJournalSchema.defaults().apply(ds));

  @Override
  public GuardHarness scopedHarness() {
    return new JdbcToolHarness(
        db.dataSource(),
        new ConcurrentHashMap<>(),
        TokenVerifier.trustEveryWriter(),
        RegisterToolHarness.OWN_REGISTER,
        JdbcToolJournal.DEFAULT_LOCK_TIMEOUT);
  }

  @Override
  public GuardHarness isolationHarness() {
    return harness();
  }

  @Override
  public GuardHarness growthHarness(TokenVerifier verifier) {
    return harness(verifier);
  }

  @Override
  public long stateSize(GuardHarness harness) {
    return io.leasehold.adapters.TableRows.total(db.dataSource());
  }

  @Override
  public GuardHarness waitingHarness(java.time.Duration limit) {
    return new JdbcToolHarness(
        db.dataSource(),
        new ConcurrentHashMap<>(),
        TokenVerifier.trustEveryWriter(),
        ToolScope.anyCall(),
        limit);
  }

  /** Another transaction holds the key's mark row, as a call stuck mid-transaction would. */
  @Override
  public AutoCloseable stickPeer(GuardHarness harness, LeaseKey key) throws Exception {
    return io.leasehold.adapters.TableRows.holdRowLock(
        db.dataSource(),
        "SELECT 1 FROM "
            + ToolJournalSchema.defaults().prefix()
            + "_mark WHERE account_id = ? AND session_id = ? FOR UPDATE",
        key.accountId(),
        key.sessionId());
  }

  @Override
  public String awaitedName(GuardHarness harness, LeaseKey key) {
    return "waited 300 ms (lockTimeout) for a lock on "
        + ToolJournalSchema.defaults().prefix()
        + "_mark";
  }

  private static final JsonNode ARGS = JsonNodeFactory.instance.objectNode().put("x", 1);

  @Override
  protected GuardHarness harness(TokenVerifier verifier) {
    return new JdbcToolHarness(db.dataSource(), new ConcurrentHashMap<>(), verifier);
  }

  @Override
  public Class<? extends io.leasehold.testkit.GuardHarnessFactory> harnessFactory() {
    return JdbcToolHarnessFactory.class;
  }

  @Override
  public String sharedStorage() {
    return io.leasehold.adapters.HarnessFactories.storage(db.database());
  }

  @Override
  public GuardHarness throwingHarness() {
    return harness();
  }

  @Override
  public void writeThrowing(
      GuardHarness harness, LeaseKey key, FencingToken token, Throwable thrown) {
    ((JdbcToolHarness) harness).writeThrowing(key, token, thrown);
  }

  @Test
  void concurrentCallsWithOneIdempotencyKeyRunTheToolOnce() throws Exception {
    IdempotentRace.runsTheToolOnce(
        JdbcToolJournal.create(db.dataSource()), new FencingToken(key, 7, UUID.randomUUID()));
  }

  @Test
  void callsInDoubtAreListedForTheNextRunFromAnotherExecutor() {
    JdbcToolJournal journal = JdbcToolJournal.create(db.dataSource());
    FencingToken old = new FencingToken(key, 3, UUID.randomUUID());
    UUID crashed = UUID.randomUUID();
    journal.intended(TestTools.intent(crashed, "echo", old, ARGS, Optional.empty()));
    journal.admitAndStart(old, crashed); // and then its process died
    FencedToolExecutor next =
        trustingExecutor(JdbcToolJournal.create(db.dataSource()))
            .tool(FencedTool.of("echo", a -> a))
            .build();
    FencingToken newer = new FencingToken(key, 4, UUID.randomUUID());
    assertThat(next.inDoubt(newer)).extracting(ToolCall::callId).containsExactly(crashed);
    assertThat(next.calls(LeaseKey.of(key.accountId(), key.sessionId()))).hasSize(1);
  }

  /**
   * Issue 30: a call's intent, admission and start are one transaction, so the call waits for one
   * commit before its tool runs, and a call whose admission fails records nothing: it never
   * started, and no later run may be told it is in doubt. (Before, the intent committed on its own
   * and stayed behind as a call in doubt.)
   */
  @Test
  void aCallWhoseAdmissionTimesOutLeavesNoCallInDoubt() throws Exception {
    JdbcToolJournal journal = journalWaiting300Ms();
    FencedToolExecutor tools = echoTools(journal);
    LeaseKey session = key;
    FencingToken token = new FencingToken(session, 5, UUID.randomUUID());
    journal.admit(token); // the key's mark row exists from here on
    try (AutoCloseable peer = stickPeer(null, session)) {
      assertThatThrownBy(() -> tools.call(token, "echo", ARGS))
          .isInstanceOf(io.leasehold.adapters.ResourceAccessException.class)
          .hasMessageContaining("waited 300 ms (lockTimeout)");
    }
    assertThat(journal.calls(session)).as("the calls journaled for the key").isEmpty();
    assertThat(tools.inDoubt(new FencingToken(session, 6, UUID.randomUUID()))).isEmpty();
    // The key works again once the peer let go, and the call is journaled once.
    assertThat(tools.call(token, "echo", ARGS)).isNotNull();
    assertThat(journal.calls(session))
        .extracting(ToolCall::state)
        .containsExactly(ToolCall.State.FINISHED);
  }

  /**
   * Issue 30: a crash at each step of a call through the PostgreSQL journal, the child JVM halted
   * there, then the next run retries it: nothing journaled is lost, and nothing runs twice that the
   * journal knew had run. {@code before-start}: the process dies with the intent written and the
   * start about to be, in one open transaction, so the call leaves no trace (before, the intent had
   * committed on its own and the next run was told the call was in doubt) and the key is not left
   * locked.
   */
  @org.junit.jupiter.params.ParameterizedTest
  @org.junit.jupiter.params.provider.ValueSource(
      strings = {"before-start", "before-effect", "after-effect", "after-return"})
  void aCrashAtAnyStepLosesNothing(
      String step, @org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
    CrashedCalls.crashThenRetry(
        sharedStorage(), () -> JdbcToolJournal.create(db.dataSource()), dir, step);
  }

  /**
   * A repeat of a call in flight (same run, tool and idempotency key) is refused and recorded as
   * refused, found by the start statement itself; once the first finished, a repeat starts, and
   * another run's call with the same key was never a duplicate.
   */
  @Test
  void aRepeatOfACallInFlightIsRefusedAndRecorded() {
    JdbcToolJournal journal = JdbcToolJournal.create(db.dataSource());
    FencingToken run = new FencingToken(key, 7, UUID.randomUUID());
    ToolCall first = call(run, "same");
    journal.start(first);
    ToolCall second = call(run, "same");
    assertThatThrownBy(() -> journal.start(second))
        .isInstanceOf(DuplicateCallException.class)
        .hasMessageContaining(first.callId().toString());
    assertThat(journal.calls(key))
        .filteredOn(c -> c.callId().equals(second.callId()))
        .singleElement()
        .satisfies(c -> assertThat(c.state()).isEqualTo(ToolCall.State.REFUSED))
        .satisfies(
            c ->
                assertThat(c.error())
                    .hasValueSatisfying(e -> assertThat(e).contains(first.callId().toString())));
    ToolCall otherRun = call(new FencingToken(key, 7, UUID.randomUUID()), "same");
    assertThat(journal.start(otherRun).token()).isEqualTo(otherRun.token());
    journal.finished(first.callId(), ARGS);
    ToolCall third = call(run, "same");
    assertThat(journal.start(third).token()).isEqualTo(run);
  }

  /**
   * Issue 46: a duplicate whose start statement saw the first call in flight looked it up again in
   * a second statement; when the first call finished in between, the duplicate found neither and
   * failed with {@code ResourceAccessException ... was never journaled as intended} (1 to 8 rounds
   * in 200 through MCP). Now one statement answers both, and each duplicate is started and
   * replayed, or refused as a duplicate; the tool runs once per key. Two callers race each round
   * with a tool that returns at once, so the first call's outcome lands while the duplicate is
   * starting.
   */
  @Test
  void aDuplicateWhoseFirstCallFinishesWhileItStartsIsAnsweredNotFailed() throws Exception {
    java.util.Map<String, java.util.concurrent.atomic.AtomicInteger> runs =
        new ConcurrentHashMap<>();
    FencedTool pay =
        TestTools.idempotent(
            "pay",
            a -> a.get("invoice").asText(),
            invocation -> {
              runs.computeIfAbsent(
                      invocation.idempotencyKey().orElseThrow(),
                      k -> new java.util.concurrent.atomic.AtomicInteger())
                  .incrementAndGet();
              return JsonNodeFactory.instance.textNode("paid");
            });
    FencedToolExecutor tools =
        trustingExecutor(JdbcToolJournal.create(db.dataSource())).tool(pay).build();
    FencingToken run = new FencingToken(key, 7, UUID.randomUUID());
    java.util.List<String> failures =
        java.util.Collections.synchronizedList(new java.util.ArrayList<>());
    java.util.concurrent.ExecutorService pool =
        java.util.concurrent.Executors.newFixedThreadPool(2);
    int rounds = 300;
    try {
      for (int round = 0; round < rounds; round++) {
        JsonNode args = JsonNodeFactory.instance.objectNode().put("invoice", "invoice-" + round);
        java.util.concurrent.CyclicBarrier start = new java.util.concurrent.CyclicBarrier(2);
        java.util.List<java.util.concurrent.Future<?>> callers = new java.util.ArrayList<>();
        for (int i = 0; i < 2; i++) {
          callers.add(
              pool.submit(
                  () -> {
                    start.await();
                    try {
                      tools.call(run, "pay", args);
                    } catch (DuplicateCallException e) {
                      // a definite answer: the first call was in flight
                    } catch (RuntimeException e) {
                      failures.add(e.toString());
                    }
                    return null;
                  }));
        }
        for (java.util.concurrent.Future<?> f : callers) {
          f.get(30, java.util.concurrent.TimeUnit.SECONDS);
        }
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(failures).isEmpty();
    assertThat(runs).hasSize(rounds).allSatisfy((k, n) -> assertThat(n).as(k).hasValue(1));
  }

  private static ToolCall call(FencingToken token, String idempotencyKey) {
    return TestTools.intent(UUID.randomUUID(), "echo", token, ARGS, Optional.of(idempotencyKey));
  }

  /**
   * CONTRACT C21: a table lock held elsewhere (a migration's ALTER TABLE, a stuck LOCK TABLE) ends
   * a call at the journal's lock timeout too, not only a row lock. A table lock is taken when a
   * statement is bound, before any of it runs, so the timeout must be set by a statement before it:
   * setting it inside the statement itself left the call waiting as long as the lock was held.
   */
  @Test
  void aTableLockHeldElsewhereEndsACallAtTheLockTimeout() throws Exception {
    JdbcToolJournal journal = journalWaiting300Ms();
    FencedToolExecutor tools = echoTools(journal);
    FencingToken token = new FencingToken(key, 5, UUID.randomUUID());
    assertThat(tools.call(token, "echo", ARGS)).isNotNull(); // every statement prepared and cached
    String table = ToolJournalSchema.defaults().prefix() + "_call";
    try (java.sql.Connection migration = db.database().newConnection()) {
      migration.setAutoCommit(false);
      try (java.sql.Statement st = migration.createStatement()) {
        st.execute("LOCK TABLE " + table + " IN ACCESS EXCLUSIVE MODE");
      }
      org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(
          java.time.Duration.ofSeconds(20),
          () ->
              assertThatThrownBy(() -> tools.call(token, "echo", ARGS))
                  .isInstanceOf(io.leasehold.adapters.ResourceAccessException.class)
                  .hasMessageContaining("waited 300 ms (lockTimeout)"));
      migration.rollback();
    }
    assertThat(tools.call(token, "echo", ARGS)).isNotNull();
  }

  /** A journal on the default tables whose lock waits end after 300 ms. */
  private static JdbcToolJournal journalWaiting300Ms() {
    return JdbcToolJournal.create(
        db.dataSource(), ToolJournalSchema.defaults(), java.time.Duration.ofMillis(300));
  }

  /** An executor with one tool, {@code echo}, on {@code journal}. */
  private static FencedToolExecutor echoTools(ToolJournal journal) {
    return trustingExecutor(journal).tool(FencedTool.of("echo", a -> a)).build();
  }
}
