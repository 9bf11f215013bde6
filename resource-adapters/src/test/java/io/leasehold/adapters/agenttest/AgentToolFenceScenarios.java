package io.leasehold.adapters.agenttest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.leasehold.adapters.agent.AgentToolFence;
import io.leasehold.adapters.agent.RunStop;
import io.leasehold.adapters.agent.RunStoppedException;
import io.leasehold.adapters.agent.SessionLeases;
import io.leasehold.adapters.agent.UnresolvedSessionException;
import io.leasehold.adapters.tool.FencedToolExecutor;
import io.leasehold.adapters.tool.JdbcToolJournal;
import io.leasehold.adapters.tool.TestTools;
import io.leasehold.adapters.tool.ToolCall;
import io.leasehold.adapters.tool.ToolJournalSchema;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.Refusal;
import io.leasehold.lease.AccessPolicy;
import io.leasehold.lease.AcquireRequest;
import io.leasehold.lease.AcquireResult;
import io.leasehold.lease.Lease;
import io.leasehold.lease.LeaseSchema;
import io.leasehold.lease.LeaseStore;
import io.leasehold.testing.TestDatabaseExtension;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The agent-tool scenarios every agent-framework module runs through its framework, on real
 * PostgreSQL (leases and the tool journal): a framework module extends this class, says how one
 * conversation turn goes through its framework, and keeps only what is its framework's own
 * (parallel tool calls, how a conversation names its session).
 *
 * <p>Each turn's tools act on {@link #world}; the fence under test is built over {@link
 * #agentFence}, whose stops land in {@link #stops}.
 */
@Timeout(60)
public abstract class AgentToolFenceScenarios {
  /** What a turn through the framework gave back. */
  public record Turn(String answer, List<String> toolResultsSeen) {}

  protected final List<RunStop> stops = new CopyOnWriteArrayList<>();
  protected final ToolWorld world = new ToolWorld();

  /** The runs registered by session, for fences that resolve a call's session. */
  protected final SessionLeases sessions = new SessionLeases();

  protected final LeaseKey key = LeaseKey.of("acct-7", "chat-" + UUID.randomUUID());
  protected LeaseStore store;
  protected JdbcToolJournal journal;
  protected AgentToolFence agentFence;

  /** Nothing reached the world and nothing was journaled for the session. */
  protected void assertNothingRan() {
    assertThat(world.effects).isEmpty();
    assertThat(journal.calls(key)).isEmpty();
  }

  /** The leases and the tool journal, in one database per test class. */
  @RegisterExtension
  protected static final TestDatabaseExtension db =
      TestDatabaseExtension.withTemplate(
          "agent_tools",
          ds -> {
            LeaseSchema.defaults().apply(ds);
            ToolJournalSchema.defaults().apply(ds);
          });

  /**
   * Runs one conversation turn through the framework: a scripted model asks for {@code toolCalls}
   * at once (tool name, then its JSON arguments, repeated), then answers {@code answer}. The tools
   * are the framework's tools over {@link #world}, fenced over {@link #agentFence}; they are called
   * one after the other.
   *
   * @param lease the run whose token the turn carries, or null for a turn that carries none
   * @param endRunOnRefusal the fence's option of that name
   * @param answer the model's closing answer
   * @param toolCalls tool name, then arguments, repeated
   * @return the answer the framework returned, and the tool results the model read
   * @throws Exception whatever the framework threw
   */
  protected abstract Turn turn(
      Lease lease, boolean endRunOnRefusal, String answer, String... toolCalls) throws Exception;

  /**
   * Runs one turn through the framework, ending the run on a refusal, in which the model calls one
   * tool of the framework's raw tool type (not an annotated method) whose body throws {@code
   * crash}.
   *
   * @param lease the run
   * @param tool the tool's name
   * @param arguments its JSON arguments
   * @param crash what the tool's body throws
   * @throws Exception whatever the framework threw
   */
  protected abstract void turnCallingACrashingTool(
      Lease lease, String tool, String arguments, Error crash) throws Exception;

  /**
   * What the fence's error says to do when a call carries no lease.
   *
   * @return a part of that message, naming the framework's own way to pass a lease
   */
  protected abstract String howToPassALease();

  /**
   * How the framework hands the model a tool's return value.
   *
   * @param returned what the tool returned
   * @return what the model reads
   */
  protected abstract String asTheModelReadsIt(String returned);

  @BeforeEach
  void openStoreAndJournal() {
    store =
        LeaseStore.builder(db.dataSource())
            .accessPolicy(administeredBy("ops"))
            .ttl(Duration.ofSeconds(30))
            .build();
    journal = JdbcToolJournal.create(db.dataSource());
    FencedToolExecutor executor = TestTools.trustingExecutor(journal).build();
    agentFence = AgentToolFence.builder(executor).listener(stops::add).build();
  }

  @AfterEach
  void closeStore() {
    store.close();
  }

  private static AccessPolicy administeredBy(String administrator) {
    return AccessPolicy.allowAll().withAdministrators(Set.of(administrator));
  }

  /**
   * Acquires the scenario's session for a device.
   *
   * @param device the holder's name
   * @return the lease
   */
  protected Lease acquire(String device) {
    AcquireResult r = store.tryAcquire(AcquireRequest.of(key, "acct-7").withHolder(device));
    assertThat(r).isInstanceOf(AcquireResult.Acquired.class);
    return ((AcquireResult.Acquired) r).lease();
  }

  /**
   * The browser takes the session over: the desktop's lease is ended and a newer run starts.
   *
   * @return the browser's lease
   */
  protected Lease takeOver() {
    store.admin().forceRelease(key, "ops", "the browser took over");
    Lease browser = acquire("browser");
    agentFence.startRun(browser);
    return browser;
  }

  /**
   * The journal's records of one run's calls.
   *
   * @param lease the run
   * @return its calls
   */
  protected List<ToolCall> callsOf(Lease lease) {
    return journal.calls(key).stream()
        .filter(c -> c.token().runId().equals(lease.runId()))
        .toList();
  }

  @Test
  void anAdmittedCallRunsTheToolWhichSeesTheToken() throws Exception {
    Lease desktop = acquire("desktop");

    Turn turn = turn(desktop, true, "done", "sendMessage", "{\"text\":\"hello\"}");

    assertThat(turn.answer()).isEqualTo("done");
    assertThat(world.effects).containsExactly("sent:hello");
    assertThat(world.tokensSeen).containsExactly(Optional.of(desktop.token()));
    assertThat(turn.toolResultsSeen()).containsExactly(asTheModelReadsIt("sent"));
    assertThat(callsOf(desktop))
        .singleElement()
        .satisfies(
            c -> {
              assertThat(c.state()).isEqualTo(ToolCall.State.FINISHED);
              assertThat(c.tool()).isEqualTo("sendMessage");
              assertThat(c.arguments().get("text").asText())
                  .isEqualTo("<redacted>"); // issue 27: redacted by default
            });
    assertThat(stops).isEmpty();
  }

  @Test
  void aSupersededRunIsRefusedItsToolNeverRunsAndTheTurnEnds() {
    Lease desktop = acquire("desktop");
    Lease browser = takeOver();

    assertThatThrownBy(() -> turn(desktop, true, "done", "sendMessage", "{\"text\":\"stale\"}"))
        .isInstanceOf(RunStoppedException.class)
        .hasMessageContaining("superseded")
        .hasMessageContaining("was NOT run")
        .satisfies(
            e -> {
              RunStop stop = ((RunStoppedException) e).stop();
              assertThat(stop.reason()).isEqualTo(Refusal.Reason.SUPERSEDED);
              assertThat(stop.newerFence()).hasValue(browser.fence());
              assertThat(stop.token()).isEqualTo(desktop.token());
            });
    assertThat(world.effects).isEmpty();
    assertThat(stops)
        .singleElement()
        .extracting(RunStop::reason)
        .isEqualTo(Refusal.Reason.SUPERSEDED);
    // Issue 27: the stale run's refused call added nothing to the journal.
    assertThat(callsOf(desktop)).isEmpty();
  }

  @Test
  void withoutEndingTheRunTheModelReadsThatItMustStop() throws Exception {
    Lease desktop = acquire("desktop");
    takeOver();

    Turn turn = turn(desktop, false, "I will stop.", "bookTable", "{\"name\":\"Ada\"}");

    assertThat(turn.answer()).isEqualTo("I will stop.");
    assertThat(world.effects).isEmpty();
    assertThat(turn.toolResultsSeen())
        .singleElement()
        .asString()
        .contains("is superseded", "a newer run of this session")
        .contains("\"bookTable\" was NOT run")
        .contains("Stop now");
  }

  @Test
  void severalCallsOfOneSupersededTurnAreAllRefusedAndTheModelReadsWhy() throws Exception {
    Lease desktop = acquire("desktop");
    takeOver();

    Turn turn =
        turn(
            desktop,
            false,
            "I stopped.",
            "sendMessage",
            "{\"text\":\"a\"}",
            "bookTable",
            "{\"name\":\"b\"}",
            "sendMessage",
            "{\"text\":\"c\"}");

    assertThat(turn.answer()).isEqualTo("I stopped.");
    assertThat(world.effects).isEmpty();
    assertThat(turn.toolResultsSeen())
        .hasSize(3)
        .allSatisfy(r -> assertThat(r).contains("superseded", "was NOT run", "Stop now"));
    // The first was refused by the journal without a record (issue 27); the others never left
    // the process.
    assertThat(callsOf(desktop)).isEmpty();
    assertThat(stops).hasSize(1);
  }

  @Test
  void aTakeOverInTheMiddleOfATurnRefusesTheRestOfItLocally() throws Exception {
    Lease desktop = acquire("desktop");
    // The browser takes over while the first call of the turn runs.
    world.duringNextSend(this::takeOver);

    Turn turn =
        turn(
            desktop,
            false,
            "stopped",
            "sendMessage",
            "{\"text\":\"first\"}",
            "bookTable",
            "{\"name\":\"second\"}",
            "sendMessage",
            "{\"text\":\"third\"}");

    assertThat(world.effects).containsExactly("sent:first");
    // The second call was refused by the journal without a record (issue 27); the third never
    // left the process.
    assertThat(callsOf(desktop))
        .extracting(ToolCall::state)
        .containsExactly(ToolCall.State.FINISHED);
    assertThat(turn.toolResultsSeen()).hasSize(3);
    assertThat(turn.toolResultsSeen().subList(1, 3))
        .allSatisfy(r -> assertThat(r).contains("superseded"));
    assertThat(stops).hasSize(1);
  }

  @Test
  void aLeaseKnownLostIsRefusedBeforeTheJournal() throws Exception {
    try (LeaseStore keeping =
        LeaseStore.builder(db.dataSource())
            .accessPolicy(administeredBy("ops"))
            .ttl(Duration.ofSeconds(2))
            .renewInterval(Duration.ofMillis(100))
            .build()) {
      Lease desktop =
          ((AcquireResult.Acquired) keeping.tryAcquire(AcquireRequest.of(key, "acct-7")))
              .lease()
              .keepAlive();
      keeping.admin().forceRelease(key, "ops", "operator stopped the run");
      assertThat(desktop.whenLost().get(10, TimeUnit.SECONDS)).isNotNull();

      assertThatThrownBy(() -> turn(desktop, true, "x", "sendMessage", "{\"text\":\"late\"}"))
          .isInstanceOf(RunStoppedException.class)
          .hasMessageContaining("lost its lease");
      assertNothingRan();
      assertThat(stops)
          .singleElement()
          .extracting(RunStop::reason)
          .isEqualTo(Refusal.Reason.LEASE_LOST);
    }
  }

  @Test
  void theNextRunListsTheCallsAnEarlierRunNeverConfirmed() {
    Lease desktop = acquire("desktop");
    // An Error flies out of the tool, as when the process dies mid-call: nobody confirms the call.
    assertThatThrownBy(
            () ->
                turnCallingACrashingTool(
                    desktop,
                    "chargeCard",
                    "{\"what\":\"order 42\"}",
                    new OutOfMemoryError("simulated crash while charging")))
        .isInstanceOf(OutOfMemoryError.class);

    store.admin().forceRelease(key, "ops", "the desktop died");
    FencedToolExecutor.RunStart start = agentFence.startRun(acquire("browser"));

    assertThat(start.inDoubt())
        .singleElement()
        .satisfies(
            c -> {
              assertThat(c.tool()).isEqualTo("chargeCard");
              assertThat(c.state()).isEqualTo(ToolCall.State.STARTED);
              assertThat(c.token()).isEqualTo(desktop.token());
              assertThat(c.arguments().get("what").asText())
                  .isEqualTo("<redacted>"); // issue 27: redacted by default
            });
    assertThat(start.admission().previousMark()).isEqualTo(desktop.fence());
  }

  @Test
  void aCallWithNoLeaseAndNoResolverSaysHowToPassOne() {
    assertThatThrownBy(() -> turn(null, true, "done", "sendMessage", "{\"text\":\"hi\"}"))
        .isInstanceOf(UnresolvedSessionException.class)
        .hasMessageContaining(howToPassALease());
    assertNothingRan();
  }
}
