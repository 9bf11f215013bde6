package io.leasehold.adapters.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.leasehold.adapters.tool.MemoryToolJournal;
import io.leasehold.adapters.tool.TestTools;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.Refusal;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Issue 26: the one agent-framework fence core the LangChain4j and Spring AI fences adapt. Its
 * context here is a plain map, as a framework's tool context would be.
 */
class FrameworkToolFenceTest {
  private final LeaseKey key = LeaseKey.of("acct", "chat");
  private final AtomicInteger invoked = new AtomicInteger();
  private final AgentToolFence fence =
      AgentToolFence.builder(TestTools.trustingExecutor(new MemoryToolJournal()).build()).build();

  private static final FrameworkToolFence.Carrier<Map<String, Object>> CARRIER =
      FrameworkToolFence.Carrier.of(
          context -> context == null ? null : context.get("lease"),
          context -> "the call",
          "map entry lease",
          "put the lease under \"lease\"",
          "put the conversation under \"conversation\"");

  private String call(FrameworkToolFence<Map<String, Object>> core, Map<String, Object> context) {
    return core.call(
        context,
        "send",
        "{}",
        c -> {
          invoked.incrementAndGet();
          return "sent";
        },
        s -> s,
        journaled -> "REPLAYED: " + journaled,
        message -> "REFUSED: " + message);
  }

  @Test
  void aSupersededRunsCallNeverReachesTheToolAndEndsTheRun() {
    FrameworkToolFence<Map<String, Object>> core =
        new FrameworkToolFence<>(fence, CARRIER, null, null, true);
    fence.startRun(new FencingToken(key, 2, UUID.randomUUID()));
    FencingToken older = new FencingToken(key, 1, UUID.randomUUID());
    assertThatThrownBy(() -> call(core, Map.of("lease", older)))
        .isInstanceOfSatisfying(
            RunStoppedException.class,
            e -> assertThat(e.stop().reason()).isEqualTo(Refusal.Reason.SUPERSEDED));
    assertThat(call(core, Map.of("lease", new FencingToken(key, 2, UUID.randomUUID()))))
        .isEqualTo("sent");
    assertThat(invoked).hasValue(1);
  }

  @Test
  void withoutEndRunOnRefusalTheModelReadsTheRefusal() {
    FrameworkToolFence<Map<String, Object>> core =
        new FrameworkToolFence<>(fence, CARRIER, null, null, false);
    fence.startRun(new FencingToken(key, 2, UUID.randomUUID()));
    assertThat(call(core, Map.of("lease", new FencingToken(key, 1, UUID.randomUUID()))))
        .startsWith("REFUSED: ")
        .contains("\"send\" was NOT run");
    assertThat(invoked).hasValue(0);
  }

  /** The call is tied to no run: refused before the tool, with an error that says {@code why}. */
  private void assertUnresolved(
      FrameworkToolFence<Map<String, Object>> core, Map<String, Object> context, String why) {
    assertThatThrownBy(() -> call(core, context))
        .isInstanceOf(UnresolvedSessionException.class)
        .hasMessageContaining(why);
  }

  @Test
  void aCallTiedToNoRunIsRefusedWithTheFrameworksOwnRepair() {
    FrameworkToolFence<Map<String, Object>> core =
        new FrameworkToolFence<>(fence, CARRIER, null, null, true);
    assertUnresolved(core, Map.of(), "put the lease under \"lease\"");
    assertUnresolved(
        core, Map.of("lease", "not a lease"), "map entry lease holds a java.lang.String");
    assertThat(invoked).hasValue(0);
  }

  @Test
  void theResolverFindsTheSessionsRunAndALeaseOfAnotherSessionIsRefused() {
    SessionLeases sessions = new SessionLeases();
    FrameworkToolFence<Map<String, Object>> core =
        new FrameworkToolFence<>(
            fence,
            CARRIER,
            c ->
                c.get("conversation") == null
                    ? null
                    : LeaseKey.of("acct", (String) c.get("conversation")),
            sessions,
            true);
    try (SessionLeases.Registration r =
        sessions.register(new FencingToken(key, 3, UUID.randomUUID()))) {
      assertThat(call(core, Map.of("conversation", "chat"))).isEqualTo("sent");
      assertUnresolved(core, Map.of(), "put the conversation under \"conversation\"");
      assertUnresolved(core, Map.of("conversation", "other"), "no live run of session");
      FencingToken foreign =
          new FencingToken(LeaseKey.of("acct", "elsewhere"), 9, UUID.randomUUID());
      assertUnresolved(
          core,
          Map.of("conversation", "chat", "lease", foreign),
          "but the conversation maps to session");
    }
    assertThat(invoked).hasValue(1);
  }

  @Test
  void aResolverWithoutSessionsIsABuildError() {
    assertThatThrownBy(
            () -> new FrameworkToolFence<Map<String, Object>>(fence, CARRIER, c -> key, null, true))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
