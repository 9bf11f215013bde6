package io.leasehold.adapters.agenttest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.leasehold.adapters.agent.RunStop;
import io.leasehold.adapters.agent.RunStoppedException;
import io.leasehold.adapters.agent.UnresolvedSessionException;
import io.leasehold.adapters.tool.FencedToolExecutor;
import io.leasehold.adapters.tool.ToolCall;
import io.leasehold.fencing.Refusal;
import io.leasehold.lease.AcquireRequest;
import io.leasehold.lease.AcquireResult;
import io.leasehold.lease.Lease;
import io.leasehold.lease.LeaseStore;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The agent-tool scenarios every agent-framework module runs through its framework, on the shared
 * {@link AgentToolFenceFixture}: a framework module extends this class once, says how one
 * conversation turn goes through its framework, and keeps only what is its framework's own (how a
 * conversation names its session, say). A framework that runs a turn's tool calls in parallel
 * extends {@link ParallelToolCallScenarios} instead.
 */
public abstract class AgentToolFenceScenarios extends AgentToolFenceFixture {
  /** What a turn through the framework gave back. */
  public record Turn(String answer, List<String> toolResultsSeen) {}

  private final String howToPassALease;
  private final String howTheResolverErrorNamesACall;

  /**
   * The scenarios, for a framework whose fence's errors say what follows.
   *
   * @param howToPassALease a part of the error for a call that carries no lease: the framework's
   *     own way to pass a lease
   * @param howTheResolverErrorNamesACall the start of how the error for a call that the session
   *     resolver mapped to no session names the call (the framework's word for a conversation)
   */
  protected AgentToolFenceScenarios(String howToPassALease, String howTheResolverErrorNamesACall) {
    this.howToPassALease = howToPassALease;
    this.howTheResolverErrorNamesACall = howTheResolverErrorNamesACall;
  }

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
   * Runs one turn, carrying no lease, through a fence whose session resolver maps the call to no
   * session (returns null).
   *
   * @param toolCalls what the model calls: tool name, then arguments, repeated
   * @throws Exception whatever the framework threw
   */
  protected abstract void turnResolvedToNoSession(String... toolCalls) throws Exception;

  /**
   * How the framework hands the model a tool's return value: as it is, unless the framework
   * converts it.
   *
   * @param returned what the tool returned
   * @return what the model reads
   */
  protected String asTheModelReadsIt(String returned) {
    return returned;
  }

  /**
   * Tool calls that alternate {@code sendMessage} and {@code bookTable}: the first sends the first
   * text, the second books a table for the second, and so on.
   *
   * @param texts the calls' texts and names
   * @return tool name, then arguments, repeated
   */
  protected static String[] alternatingSendAndBook(String... texts) {
    String[] calls = new String[texts.length * 2];
    for (int i = 0; i < texts.length; i++) {
      boolean send = i % 2 == 0;
      calls[2 * i] = send ? "sendMessage" : "bookTable";
      calls[2 * i + 1] = "{\"" + (send ? "text" : "name") + "\":\"" + texts[i] + "\"}";
    }
    return calls;
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
    Lease desktop = supersededDesktop();

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
    Lease desktop = supersededDesktop();

    Turn turn = turn(desktop, false, "I stopped.", alternatingSendAndBook("a", "b", "c"));

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

    Turn turn = turn(desktop, false, "stopped", alternatingSendAndBook("first", "second", "third"));

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
        .hasMessageContaining(howToPassALease);
    assertNothingRan();
  }

  @Test
  void aResolverThatMapsTheCallToNoSessionIsAClearErrorAndNothingRuns() {
    acquire("desktop");

    assertThatThrownBy(() -> turnResolvedToNoSession("sendMessage", "{\"text\":\"hi\"}"))
        .isInstanceOf(UnresolvedSessionException.class)
        .hasMessageContaining("mapped " + howTheResolverErrorNamesACall)
        .hasMessageContaining("to no session");
    assertNothingRan();
  }
}
