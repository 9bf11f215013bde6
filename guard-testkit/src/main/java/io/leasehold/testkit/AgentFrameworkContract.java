package io.leasehold.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.leasehold.fencing.Fenced;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.LeaseLostException;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The agent-framework contract: whatever carries a run's tool calls to its tools (an in-process
 * agent framework's fence, an MCP client and server), a superseded run's call never reaches the
 * tool, a run whose lease is known lost is stopped before anything is sent, a call retried with the
 * same idempotency key runs the tool once, and a newer run reusing that key runs its own call
 * (idempotency is per run). LangChain4j, Spring AI, Google ADK and the MCP path run it; implement
 * {@link #agentHarness()} to run it against a framework of your own.
 */
public interface AgentFrameworkContract {
  /**
   * A fresh agent, on fresh storage, whose one tool records the text it is called with, and whose
   * fence trusts every writer (the contract is about the framework's path, not verification).
   *
   * @return the harness
   */
  AgentHarness agentHarness();

  /** An agent whose model calls one tool, {@code record(text)}, as the harness is told. */
  interface AgentHarness extends AutoCloseable {
    /**
     * One model turn for {@code run} in which the model calls the tool once with {@code text}, with
     * {@code idempotencyKey} if present, through the framework's fenced path.
     *
     * @param run the run's lease or token
     * @param text what the tool records
     * @param idempotencyKey the call's idempotency key, if any
     * @throws Exception the framework's "run stopped" error (or another) if the call was refused
     */
    void call(Fenced run, String text, Optional<String> idempotencyKey) throws Exception;

    /**
     * Starts {@code run} as its session's newest run, as an agent does before its first call.
     *
     * @param run the new run
     */
    void startRun(Fenced run);

    /**
     * What the tool recorded, in order: what reached "the world".
     *
     * @return the effects
     */
    List<String> effects();

    /** Stops what the harness started (a server, a client); the default has nothing to stop. */
    @Override
    default void close() {}
  }

  private static FencingToken token(LeaseKey key, long fence) {
    return new FencingToken(key, fence, UUID.randomUUID());
  }

  /** A desktop's run (fence 1) and a browser's (fence 2) of one fresh session. */
  private static FencingToken[] desktopAndBrowser() {
    LeaseKey key = LeaseKey.of("acct-7", "chat-" + UUID.randomUUID());
    return new FencingToken[] {token(key, 1), token(key, 2)};
  }

  /** The desktop's run writes, the browser's run takes over, the desktop's next call is refused. */
  @Test
  default void aSupersededRunsCallNeverReachesTheTool() throws Exception {
    FencingToken[] runs = desktopAndBrowser();
    FencingToken desktop = runs[0];
    FencingToken browser = runs[1];
    try (AgentHarness h = agentHarness()) {
      h.call(desktop, "desktop draft", Optional.empty());
      h.startRun(browser);
      h.call(browser, "browser plan", Optional.empty());
      assertThatThrownBy(() -> h.call(desktop, "desktop late", Optional.empty()))
          .as("the superseded run's call")
          .isNotNull();
      assertThat(h.effects()).containsExactly("desktop draft", "browser plan");
    }
  }

  /** A run that knows its lease is lost is stopped before its call leaves it. */
  @Test
  default void aRunWhoseLeaseIsLostIsStoppedBeforeItsCallIsSent() throws Exception {
    FencingToken token = token(LeaseKey.of("acct-7", "chat-" + UUID.randomUUID()), 1);
    Fenced lost =
        () -> {
          throw new LeaseLostException(token, "renewal failed");
        };
    try (AgentHarness h = agentHarness()) {
      assertThatThrownBy(() -> h.call(lost, "after the loss", Optional.empty())).isNotNull();
      assertThat(h.effects()).isEmpty();
    }
  }

  /** A call retried with the same idempotency key, as after a lost answer, runs the tool once. */
  @Test
  default void aCallRetriedWithTheSameIdempotencyKeyRunsOnce() throws Exception {
    FencingToken run = token(LeaseKey.of("acct-7", "chat-" + UUID.randomUUID()), 1);
    try (AgentHarness h = agentHarness()) {
      h.call(run, "pay invoice 42", Optional.of("invoice-42"));
      h.call(run, "pay invoice 42", Optional.of("invoice-42"));
      h.call(run, "pay invoice 43", Optional.of("invoice-43"));
      assertThat(h.effects()).containsExactly("pay invoice 42", "pay invoice 43");
    }
  }

  /**
   * A newer run that reuses an older run's idempotency key runs its own call: it never gets the
   * older run's answer in place of its own effect.
   */
  @Test
  default void aNewerRunReusingAnIdempotencyKeyRunsItsOwnCall() throws Exception {
    FencingToken[] runs = desktopAndBrowser();
    try (AgentHarness h = agentHarness()) {
      h.call(runs[0], "desktop pays invoice 42", Optional.of("invoice-42"));
      h.startRun(runs[1]);
      h.call(runs[1], "browser pays invoice 42", Optional.of("invoice-42"));
      h.call(runs[1], "browser pays invoice 42", Optional.of("invoice-42"));
      assertThat(h.effects()).containsExactly("desktop pays invoice 42", "browser pays invoice 42");
    }
  }
}
