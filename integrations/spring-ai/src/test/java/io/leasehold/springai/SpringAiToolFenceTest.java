package io.leasehold.springai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.leasehold.adapters.agent.AgentToolFence;
import io.leasehold.adapters.agent.RunStop;
import io.leasehold.adapters.agent.RunStoppedException;
import io.leasehold.adapters.agent.SessionLeases;
import io.leasehold.adapters.agent.UnresolvedSessionException;
import io.leasehold.adapters.tool.FencedToolExecutor;
import io.leasehold.adapters.tool.JdbcToolJournal;
import io.leasehold.adapters.tool.ToolCall;
import io.leasehold.adapters.tool.ToolJournalSchema;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.TokenVerifier;
import io.leasehold.lease.AccessPolicy;
import io.leasehold.lease.AcquireRequest;
import io.leasehold.lease.AcquireResult;
import io.leasehold.lease.Lease;
import io.leasehold.lease.LeaseSchema;
import io.leasehold.lease.LeaseStore;
import io.leasehold.testing.TestDatabaseExtension;
import java.time.Duration;
import java.util.List;
import java.util.Map;
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
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.memory.ChatMemory;
import org.springframework.ai.chat.model.ToolContext;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.ai.tool.ToolCallbackProvider;
import org.springframework.ai.tool.definition.ToolDefinition;

/** Spring AI ChatClient calls with fenced tools, on real PostgreSQL (leases and the tool journal). */
@Timeout(60)
class SpringAiToolFenceTest {
  @RegisterExtension
  static final TestDatabaseExtension db =
      TestDatabaseExtension.withTemplate(
          "agents_springai",
          ds -> {
            LeaseSchema.defaults().apply(ds);
            ToolJournalSchema.defaults().apply(ds);
          });

  private LeaseStore store;
  private JdbcToolJournal journal;
  private AgentToolFence agentFence;
  private final List<RunStop> stops = new CopyOnWriteArrayList<>();
  private final RecordingTools tools = new RecordingTools();
  private final LeaseKey key = LeaseKey.of("acct-7", "chat-" + UUID.randomUUID());

  @BeforeEach
  void setUp() {
    store =
        LeaseStore.builder(db.dataSource())
            .accessPolicy(AccessPolicy.allowAll().withAdministrators(Set.of("ops")))
            .ttl(Duration.ofSeconds(30))
            .build();
    journal = JdbcToolJournal.create(db.dataSource());
    FencedToolExecutor executor =
        FencedToolExecutor.builder().verifier(TokenVerifier.trustEveryWriter()).journal(journal).build();
    agentFence = AgentToolFence.builder(executor).listener(stops::add).build();
  }

  @AfterEach
  void tearDown() {
    store.close();
  }

  private Lease acquire(String device) {
    AcquireResult r = store.tryAcquire(AcquireRequest.of(key, "acct-7").withHolder(device));
    assertThat(r).isInstanceOf(AcquireResult.Acquired.class);
    return ((AcquireResult.Acquired) r).lease();
  }

  private Lease takeOver() {
    store.admin().forceRelease(key, "ops", "the browser took over");
    Lease browser = acquire("browser");
    agentFence.startRun(browser);
    return browser;
  }

  private static String ask(ScriptedChatModel model, ToolCallbackProvider callbacks, Map<String, Object> context) {
    return ChatClient.builder(model).build().prompt().user("go").tools(callbacks).toolContext(context).call().content();
  }

  private List<ToolCall> callsOf(Lease lease) {
    return journal.calls(key).stream().filter(c -> c.token().runId().equals(lease.runId())).toList();
  }

  @Test
  void anAdmittedCallRunsTheToolWhichSeesTheToken() {
    Lease desktop = acquire("desktop");
    ScriptedChatModel model = new ScriptedChatModel().callTools("sendMessage", "{\"text\":\"hello\"}").answer("done");
    SpringAiToolFence fence = SpringAiToolFence.builder(agentFence).build();

    assertThat(ask(model, fence.wrapObjects(tools), SpringAiToolFence.toolContext(desktop))).isEqualTo("done");

    assertThat(tools.effects).containsExactly("sent:hello");
    assertThat(tools.tokensSeen).containsExactly(Optional.of(desktop.token()));
    assertThat(model.toolResultsSeen()).singleElement().asString().contains("sent");
    assertThat(callsOf(desktop)).singleElement().satisfies(c -> {
      assertThat(c.state()).isEqualTo(ToolCall.State.FINISHED);
      assertThat(c.arguments().get("text").asText()).isEqualTo("<redacted>"); // issue 27: redacted by default
    });
  }

  @Test
  void aSupersededRunIsRefusedItsToolNeverRunsAndTheCallEnds() {
    Lease desktop = acquire("desktop");
    Lease browser = takeOver();
    ScriptedChatModel model = new ScriptedChatModel().callTools("sendMessage", "{\"text\":\"stale\"}").answer("done");
    SpringAiToolFence fence = SpringAiToolFence.builder(agentFence).build();

    assertThatThrownBy(() -> ask(model, fence.wrapObjects(tools), SpringAiToolFence.toolContext(desktop)))
        .isInstanceOf(RunStoppedException.class)
        .hasMessageContaining("superseded")
        .satisfies(e -> assertThat(((RunStoppedException) e).stop().newerFence()).hasValue(browser.fence()));
    assertThat(tools.effects).isEmpty();
    assertThat(stops).singleElement().extracting(RunStop::reason).isEqualTo(RunStop.Reason.SUPERSEDED);
    // Issue 27: the stale run's refused call added nothing to the journal.
    assertThat(callsOf(desktop)).isEmpty();
  }

  @Test
  void severalCallsOfOneSupersededTurnAreAllRefusedAndTheModelReadsWhy() {
    Lease desktop = acquire("desktop");
    takeOver();
    ScriptedChatModel model =
        new ScriptedChatModel()
            .callTools(
                "sendMessage", "{\"text\":\"a\"}",
                "bookTable", "{\"name\":\"b\"}",
                "sendMessage", "{\"text\":\"c\"}")
            .answer("I stopped.");
    SpringAiToolFence fence = SpringAiToolFence.builder(agentFence).endRunOnRefusal(false).build();

    assertThat(ask(model, fence.wrapObjects(tools), SpringAiToolFence.toolContext(desktop))).isEqualTo("I stopped.");

    assertThat(tools.effects).isEmpty();
    assertThat(model.toolResultsSeen()).hasSize(3).allSatisfy(r -> assertThat(r).contains("superseded", "was NOT run", "Stop now"));
    // The first was refused by the journal without a record (issue 27); the others never left
    // the process.
    // Issue 27: the stale run's refused call added nothing to the journal.
    assertThat(callsOf(desktop)).isEmpty();
    assertThat(stops).hasSize(1);
  }

  @Test
  void aTakeOverInTheMiddleOfATurnRefusesTheRestOfIt() {
    Lease desktop = acquire("desktop");
    tools.duringNextSend = this::takeOver;
    ScriptedChatModel model =
        new ScriptedChatModel()
            .callTools(
                "sendMessage", "{\"text\":\"first\"}",
                "bookTable", "{\"name\":\"second\"}",
                "sendMessage", "{\"text\":\"third\"}")
            .answer("stopped");
    SpringAiToolFence fence = SpringAiToolFence.builder(agentFence).endRunOnRefusal(false).build();

    ask(model, fence.wrapObjects(tools), SpringAiToolFence.toolContext(desktop));

    assertThat(tools.effects).containsExactly("sent:first");
    assertThat(callsOf(desktop)).extracting(ToolCall::state).containsExactly(ToolCall.State.FINISHED);
  }

  @Test
  void aLeaseKnownLostIsRefusedBeforeTheJournal() throws Exception {
    try (LeaseStore keeping =
        LeaseStore.builder(db.dataSource())
            .accessPolicy(AccessPolicy.allowAll().withAdministrators(Set.of("ops")))
            .ttl(Duration.ofSeconds(2))
            .renewInterval(Duration.ofMillis(100))
            .build()) {
      Lease desktop = ((AcquireResult.Acquired) keeping.tryAcquire(AcquireRequest.of(key, "acct-7"))).lease().keepAlive();
      keeping.admin().forceRelease(key, "ops", "operator stopped the run");
      assertThat(desktop.whenLost().get(10, TimeUnit.SECONDS)).isNotNull();

      ScriptedChatModel model = new ScriptedChatModel().callTools("sendMessage", "{\"text\":\"late\"}").answer("x");
      assertThatThrownBy(
              () -> ask(model, SpringAiToolFence.builder(agentFence).build().wrapObjects(tools), SpringAiToolFence.toolContext(desktop)))
          .isInstanceOf(RunStoppedException.class)
          .hasMessageContaining("lost its lease");
      assertThat(tools.effects).isEmpty();
      assertThat(journal.calls(key)).isEmpty();
    }
  }

  @Test
  void theNextRunListsTheCallsAnEarlierRunNeverConfirmed() {
    Lease desktop = acquire("desktop");
    ToolCallback crashing =
        new ToolCallback() {
          @Override
          public ToolDefinition getToolDefinition() {
            return ToolDefinition.builder().name("chargeCard").description("Charges a card").inputSchema("{\"type\":\"object\"}").build();
          }

          @Override
          public String call(String toolInput) {
            // An Error, as when the process dies mid-call: nobody confirms the call.
            throw new OutOfMemoryError("simulated crash while charging");
          }
        };
    ScriptedChatModel model = new ScriptedChatModel().callTools("chargeCard", "{\"what\":\"order 42\"}").answer("x");
    SpringAiToolFence fence = SpringAiToolFence.builder(agentFence).build();
    assertThatThrownBy(() -> ask(model, ToolCallbackProvider.from(fence.wrap(crashing)), SpringAiToolFence.toolContext(desktop)))
        .isInstanceOf(OutOfMemoryError.class);

    store.admin().forceRelease(key, "ops", "the desktop died");
    FencedToolExecutor.RunStart start = agentFence.startRun(acquire("browser"));

    assertThat(start.inDoubt()).singleElement().satisfies(c -> {
      assertThat(c.tool()).isEqualTo("chargeCard");
      assertThat(c.state()).isEqualTo(ToolCall.State.STARTED);
      assertThat(c.token()).isEqualTo(desktop.token());
    });
  }

  @Test
  void aRunFoundByTheConversationIdInTheToolContext() {
    Lease desktop = acquire("desktop");
    SessionLeases sessions = new SessionLeases();
    SpringAiToolFence fence =
        SpringAiToolFence.builder(agentFence)
            .sessions(ctx -> LeaseKey.of("acct-7", (String) ctx.getContext().get(ChatMemory.CONVERSATION_ID)), sessions)
            .build();
    ScriptedChatModel model = new ScriptedChatModel().callTools("sendMessage", "{\"text\":\"hi\"}").answer("done");
    try (SessionLeases.Registration r = sessions.register(desktop)) {
      assertThat(ask(model, fence.wrapObjects(tools), Map.of(ChatMemory.CONVERSATION_ID, key.sessionId()))).isEqualTo("done");
    }
    assertThat(tools.tokensSeen).containsExactly(Optional.of(desktop.token()));
  }

  @Test
  void aResolverThatCannotMapTheConversationIsAClearErrorAndNothingRuns() {
    acquire("desktop");
    SpringAiToolFence fence = SpringAiToolFence.builder(agentFence).sessions(ctx -> null, new SessionLeases()).build();
    ScriptedChatModel model = new ScriptedChatModel().callTools("sendMessage", "{\"text\":\"hi\"}").answer("done");

    assertThatThrownBy(() -> ask(model, fence.wrapObjects(tools), Map.of(ChatMemory.CONVERSATION_ID, "unknown")))
        .isInstanceOf(UnresolvedSessionException.class)
        .hasMessageContaining("to no session");
    assertThat(tools.effects).isEmpty();
    assertThat(journal.calls(key)).isEmpty();
  }

  @Test
  void aConversationWithNoRegisteredRunIsAClearError() {
    SpringAiToolFence fence =
        SpringAiToolFence.builder(agentFence)
            .sessions(ctx -> LeaseKey.of("acct-7", (String) ctx.getContext().get(ChatMemory.CONVERSATION_ID)), new SessionLeases())
            .build();
    ScriptedChatModel model = new ScriptedChatModel().callTools("sendMessage", "{\"text\":\"hi\"}").answer("done");

    assertThatThrownBy(() -> ask(model, fence.wrapObjects(tools), Map.of(ChatMemory.CONVERSATION_ID, key.sessionId())))
        .isInstanceOf(UnresolvedSessionException.class)
        .hasMessageContaining("no live run of session " + key);
    assertThat(tools.effects).isEmpty();
  }

  @Test
  void aCallWithNoLeaseAndNoResolverSaysHowToPassOne() {
    ScriptedChatModel model = new ScriptedChatModel().callTools("sendMessage", "{\"text\":\"hi\"}").answer("done");
    assertThatThrownBy(() -> ask(model, SpringAiToolFence.builder(agentFence).build().wrapObjects(tools), Map.of("x", "y")))
        .isInstanceOf(UnresolvedSessionException.class)
        .hasMessageContaining("SpringAiToolFence.toolContext(lease)");
    assertThat(tools.effects).isEmpty();
  }

  @Test
  void theDecoratorKeepsTheToolsDefinition() {
    ToolCallback[] plain = org.springframework.ai.support.ToolCallbacks.from(tools);
    ToolCallback[] fenced = SpringAiToolFence.builder(agentFence).build().wrap(plain);
    for (int i = 0; i < plain.length; i++) {
      assertThat(fenced[i].getToolDefinition()).isEqualTo(plain[i].getToolDefinition());
      assertThat(fenced[i].getToolMetadata()).isEqualTo(plain[i].getToolMetadata());
    }
    assertThat(SpringAiToolFence.token(new ToolContext(Map.of()))).isEmpty();
  }
}
