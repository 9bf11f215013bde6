package io.leasehold.examples.agent;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.adapters.agent.AgentToolFence;
import io.leasehold.adapters.tool.FencedToolExecutor;
import io.leasehold.adapters.tool.JdbcToolJournal;
import io.leasehold.adapters.tool.ToolJournalSchema;
import io.leasehold.examples.AdkExamples;
import io.leasehold.examples.AgentExamples;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.TokenTransport;
import io.leasehold.fencing.TokenVerifier;
import io.leasehold.lease.AccessPolicy;
import io.leasehold.lease.AcquireResult;
import io.leasehold.lease.Lease;
import io.leasehold.lease.LeaseSchema;
import io.leasehold.lease.LeaseStore;
import io.leasehold.testing.TestDatabaseExtension;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.model.Generation;
import org.springframework.ai.chat.prompt.ChatOptions;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.model.tool.ToolCallingChatOptions;

/** The samples of docs/agents.md run, so they show working code. */
class AgentExamplesTest {
  @RegisterExtension
  static final TestDatabaseExtension db =
      TestDatabaseExtension.withSchemas(
          "agent_examples", LeaseSchema.defaults()::apply, ToolJournalSchema.defaults()::apply);

  private LeaseStore store;
  private AgentToolFence fence;
  private final LeaseKey key = LeaseKey.of("acct-7", "chat-" + UUID.randomUUID());

  @BeforeEach
  void setUp() {
    store =
        LeaseStore.builder(db.dataSource())
            .accessPolicy(AccessPolicy.allowAll().withAdministrators(Set.of("ops")))
            .build();
    fence =
        AgentToolFence.builder(
                FencedToolExecutor.builder()
                    .verifier(TokenVerifier.trustEveryWriter())
                    .journal(JdbcToolJournal.create(db.dataSource()))
                    .build())
            .build();
  }

  @AfterEach
  void tearDown() {
    store.close();
  }

  private Lease acquire() {
    return ((AcquireResult.Acquired) store.tryAcquire(key, "acct-7")).lease();
  }

  @Test
  void langChain4jForwardsTheTokenAndStopsASupersededRun() {
    Lease desktop = acquire();
    AgentExamples.BookingTools tools = new AgentExamples.BookingTools();
    String answer =
        AgentExamples.langChain4j(
            db.dataSource(),
            new ScriptedAgentModel().call("bookTable", "{\"name\":\"Ada\"}").answer("booked"),
            tools,
            desktop);
    assertThat(answer).isEqualTo("booked");
    assertThat(tools.sent())
        .singleElement()
        .satisfies(
            r ->
                assertThat(r.headers().firstValue(TokenTransport.HTTP_HEADER))
                    .contains(desktop.token().toText()));

    store.admin().forceRelease(key, "ops", "browser took over");
    Lease browser = acquire();
    fence.startRun(browser);
    assertThat(
            AgentExamples.langChain4j(
                db.dataSource(),
                new ScriptedAgentModel().call("bookTable", "{\"name\":\"Bob\"}").answer("booked"),
                tools,
                desktop))
        .isNull();
    assertThat(tools.sent()).hasSize(1);
  }

  @Test
  void langChain4jFindsTheRunByItsMemoryId() {
    Lease desktop = acquire();
    AgentExamples.BookingTools tools = new AgentExamples.BookingTools();
    assertThat(
            AgentExamples.langChain4jBySession(
                fence,
                new ScriptedAgentModel().call("bookTable", "{\"name\":\"Ada\"}").answer("booked"),
                tools,
                desktop))
        .isEqualTo("booked");
    assertThat(tools.sent()).hasSize(1);
  }

  @Test
  void springAiToolsSeeTheToken() {
    Lease desktop = acquire();
    AgentExamples.SpringBookingTools tools = new AgentExamples.SpringBookingTools();
    Deque<AssistantMessage> script =
        new ArrayDeque<>(
            List.of(
                AssistantMessage.builder()
                    .content("")
                    .toolCalls(
                        List.of(
                            new AssistantMessage.ToolCall(
                                "1", "function", "bookTable", "{\"name\":\"Ada\"}")))
                    .build(),
                new AssistantMessage("booked")));
    ChatModel model =
        new ChatModel() {
          @Override
          public ChatResponse call(Prompt prompt) {
            return new ChatResponse(List.of(new Generation(script.poll())));
          }

          @Override
          public ChatOptions getOptions() {
            return ToolCallingChatOptions.builder().build();
          }
        };
    assertThat(AgentExamples.springAi(fence, ChatClient.builder(model).build(), tools, desktop))
        .isEqualTo("booked");
    assertThat(tools.tokens()).containsExactly(desktop.token());
  }

  @Test
  void adkToolsSeeTheTokenAndARunSupersededMidTurnStops() {
    Lease desktop = acquire();
    AdkExamples.AdkBookingTools tools = new AdkExamples.AdkBookingTools();
    ScriptedAgentModel script =
        new ScriptedAgentModel().call("bookTable", "{\"name\":\"Ada\"}").answer("booked");
    assertThat(AdkExamples.adk(fence, new ScriptedAdkModel(script), tools, desktop))
        .isEqualTo("booked");
    assertThat(tools.tokens()).containsExactly(desktop.token());

    // The browser takes over while the desktop's model is "thinking": its booking never runs.
    Runnable takeOver =
        () -> {
          store.admin().forceRelease(key, "ops", "browser took over");
          fence.startRun(acquire());
        };
    ScriptedAgentModel stale =
        new ScriptedAgentModel().callAfter(takeOver, "bookTable", "{\"name\":\"Bob\"}");
    assertThat(AdkExamples.adk(fence, new ScriptedAdkModel(stale), tools, desktop)).isNull();
    assertThat(tools.tokens()).hasSize(1);
  }

  @Test
  void thePlainLoopStopsWhenItsRunIsSuperseded() {
    Lease desktop = acquire();
    List<String> effects = new java.util.concurrent.CopyOnWriteArrayList<>();
    Map<String, java.util.function.Function<String, String>> tools =
        Map.of(
            "send",
            args -> {
              effects.add(args);
              return "sent";
            });
    Deque<AgentExamples.ModelReply> replies =
        new ArrayDeque<>(
            List.of(
                new AgentExamples.ModelReply(
                    List.of(new AgentExamples.ModelToolCall("send", "{\"n\":1}")), null),
                new AgentExamples.ModelReply(List.of(), "done")));
    assertThat(AgentExamples.plainLoop(fence, desktop, results -> replies.poll(), tools))
        .isEqualTo("done");
    assertThat(effects).containsExactly("{\"n\":1}");

    store.admin().forceRelease(key, "ops", "browser took over");
    fence.startRun(acquire());
    Deque<AgentExamples.ModelReply> stale =
        new ArrayDeque<>(
            List.of(
                new AgentExamples.ModelReply(
                    List.of(new AgentExamples.ModelToolCall("send", "{\"n\":2}")), null)));
    // The stale run's own startRun is refused first, as a newer run has started.
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> AgentExamples.plainLoop(fence, desktop, results -> stale.poll(), tools))
        .isInstanceOf(io.leasehold.fencing.StaleFenceException.class);
    assertThat(effects).hasSize(1);
  }
}
