package io.leasehold.langchain4j;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.agent.tool.ToolSpecifications;
import dev.langchain4j.invocation.InvocationParameters;
import dev.langchain4j.memory.chat.MessageWindowChatMemory;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.MemoryId;
import dev.langchain4j.service.UserMessage;
import dev.langchain4j.service.tool.DefaultToolExecutor;
import dev.langchain4j.service.tool.ToolExecutor;
import dev.langchain4j.service.tool.ToolProviderResult;
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
import io.leasehold.lease.AcquireResult;
import io.leasehold.lease.Lease;
import io.leasehold.lease.LeaseLoss;
import io.leasehold.lease.LeaseSchema;
import io.leasehold.lease.LeaseStore;
import io.leasehold.testing.TestDatabaseExtension;
import java.lang.reflect.Method;
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

/** LangChain4j AI services with fenced tools, on real PostgreSQL (leases and the tool journal). */
@Timeout(60)
class LangChain4jToolFenceTest {
  @RegisterExtension
  static final TestDatabaseExtension db =
      TestDatabaseExtension.withTemplate(
          "agents_lc4j",
          ds -> {
            LeaseSchema.defaults().apply(ds);
            ToolJournalSchema.defaults().apply(ds);
          });

  interface Assistant {
    String chat(@UserMessage String message, InvocationParameters parameters);
  }

  interface MemoryAssistant {
    String chat(@MemoryId String session, @UserMessage String message);
  }

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
    AcquireResult r = store.tryAcquire(io.leasehold.lease.AcquireRequest.of(key, "acct-7").withHolder(device));
    assertThat(r).isInstanceOf(AcquireResult.Acquired.class);
    return ((AcquireResult.Acquired) r).lease();
  }

  /** The browser takes the session over: the desktop's lease is ended and a newer run starts. */
  private Lease takeOver() {
    store.admin().forceRelease(key, "ops", "the browser took over");
    Lease browser = acquire("browser");
    agentFence.startRun(browser);
    return browser;
  }

  private Assistant assistant(ScriptedChatModel model, LangChain4jToolFence fence, boolean concurrently) {
    AiServices<Assistant> b =
        AiServices.builder(Assistant.class)
            .chatModel(model)
            .tools(fence.wrapObjects(tools))
            .toolExecutionErrorHandler(fence.errorHandler());
    if (concurrently) {
      b.executeToolsConcurrently();
    }
    return b.build();
  }

  private List<ToolCall> callsOf(Lease lease) {
    return journal.calls(key).stream().filter(c -> c.token().runId().equals(lease.runId())).toList();
  }

  @Test
  void anAdmittedCallRunsTheToolWhichSeesTheToken() {
    Lease desktop = acquire("desktop");
    ScriptedChatModel model = new ScriptedChatModel().callTools("sendMessage", "{\"text\":\"hello\"}").answer("done");
    String answer =
        assistant(model, LangChain4jToolFence.builder(agentFence).build(), false)
            .chat("greet", LangChain4jToolFence.parameters(desktop));

    assertThat(answer).isEqualTo("done");
    assertThat(tools.effects).containsExactly("sent:hello");
    assertThat(tools.tokensSeen).containsExactly(Optional.of(desktop.token()));
    assertThat(model.toolResultsSeen()).containsExactly("sent");
    assertThat(callsOf(desktop)).singleElement().satisfies(c -> {
      assertThat(c.state()).isEqualTo(ToolCall.State.FINISHED);
      assertThat(c.tool()).isEqualTo("sendMessage");
      assertThat(c.arguments().get("text").asText()).isEqualTo("<redacted>"); // issue 27: redacted by default
    });
    assertThat(stops).isEmpty();
  }

  @Test
  void aSupersededRunIsRefusedItsToolNeverRunsAndTheServiceCallEnds() {
    Lease desktop = acquire("desktop");
    Lease browser = takeOver();
    ScriptedChatModel model = new ScriptedChatModel().callTools("sendMessage", "{\"text\":\"stale\"}").answer("done");

    assertThatThrownBy(
            () ->
                assistant(model, LangChain4jToolFence.builder(agentFence).build(), false)
                    .chat("greet", LangChain4jToolFence.parameters(desktop)))
        .isInstanceOf(RunStoppedException.class)
        .hasMessageContaining("superseded")
        .hasMessageContaining("was NOT run")
        .satisfies(e -> {
          RunStop stop = ((RunStoppedException) e).stop();
          assertThat(stop.reason()).isEqualTo(RunStop.Reason.SUPERSEDED);
          assertThat(stop.newerFence()).hasValue(browser.fence());
          assertThat(stop.token()).isEqualTo(desktop.token());
        });
    assertThat(tools.effects).isEmpty();
    assertThat(stops).singleElement().extracting(RunStop::reason).isEqualTo(RunStop.Reason.SUPERSEDED);
    // Issue 27: the stale run's refused call added nothing to the journal.
    assertThat(callsOf(desktop)).isEmpty();
  }

  @Test
  void withoutEndingTheRunTheModelReadsThatItMustStop() {
    Lease desktop = acquire("desktop");
    takeOver();
    ScriptedChatModel model =
        new ScriptedChatModel().callTools("bookTable", "{\"name\":\"Ada\"}").answer("I will stop.");
    LangChain4jToolFence fence = LangChain4jToolFence.builder(agentFence).endRunOnRefusal(false).build();

    String answer = assistant(model, fence, false).chat("book", LangChain4jToolFence.parameters(desktop));

    assertThat(answer).isEqualTo("I will stop.");
    assertThat(tools.effects).isEmpty();
    assertThat(model.toolResultsSeen())
        .singleElement()
        .asString()
        .contains("is superseded", "a newer run of this session")
        .contains("\"bookTable\" was NOT run")
        .contains("Stop now");
  }

  @Test
  void parallelCallsOfASupersededTurnAreAllRefused() {
    Lease desktop = acquire("desktop");
    takeOver();
    ScriptedChatModel model =
        new ScriptedChatModel()
            .callTools(
                "sendMessage", "{\"text\":\"a\"}",
                "bookTable", "{\"name\":\"b\"}",
                "sendMessage", "{\"text\":\"c\"}",
                "bookTable", "{\"name\":\"d\"}")
            .answer("stopped");
    LangChain4jToolFence fence = LangChain4jToolFence.builder(agentFence).endRunOnRefusal(false).build();

    assertThat(assistant(model, fence, true).chat("all at once", LangChain4jToolFence.parameters(desktop)))
        .isEqualTo("stopped");

    assertThat(tools.effects).isEmpty();
    assertThat(model.toolResultsSeen()).hasSize(4).allSatisfy(r -> assertThat(r).contains("was NOT run"));
    assertThat(stops).hasSize(1);
    assertThat(callsOf(desktop)).isEmpty(); // issue 27: refused calls add nothing
  }

  @Test
  void parallelCallsOfACurrentRunAllRun() {
    Lease desktop = acquire("desktop");
    ScriptedChatModel model =
        new ScriptedChatModel()
            .callTools(
                "sendMessage", "{\"text\":\"a\"}",
                "bookTable", "{\"name\":\"b\"}",
                "sendMessage", "{\"text\":\"c\"}")
            .answer("ok");

    assertThat(
            assistant(model, LangChain4jToolFence.builder(agentFence).build(), true)
                .chat("all at once", LangChain4jToolFence.parameters(desktop)))
        .isEqualTo("ok");
    assertThat(tools.effects).containsExactlyInAnyOrder("sent:a", "booked:b", "sent:c");
    assertThat(callsOf(desktop)).hasSize(3).allSatisfy(c -> assertThat(c.state()).isEqualTo(ToolCall.State.FINISHED));
  }

  @Test
  void aTakeOverInTheMiddleOfATurnRefusesTheRestOfItLocally() {
    Lease desktop = acquire("desktop");
    // The browser takes over while the first call of the turn runs.
    tools.duringNextSend = this::takeOver;
    ScriptedChatModel model =
        new ScriptedChatModel()
            .callTools(
                "sendMessage", "{\"text\":\"first\"}",
                "bookTable", "{\"name\":\"second\"}",
                "sendMessage", "{\"text\":\"third\"}")
            .answer("stopped");
    LangChain4jToolFence fence = LangChain4jToolFence.builder(agentFence).endRunOnRefusal(false).build();

    assistant(model, fence, false).chat("three steps", LangChain4jToolFence.parameters(desktop));

    assertThat(tools.effects).containsExactly("sent:first");
    // The second call was refused by the journal without a record (issue 27); the third never
    // left the process.
    assertThat(callsOf(desktop)).extracting(ToolCall::state).containsExactly(ToolCall.State.FINISHED);
    assertThat(model.toolResultsSeen()).hasSize(3);
    assertThat(model.toolResultsSeen().subList(1, 3)).allSatisfy(r -> assertThat(r).contains("superseded"));
    assertThat(stops).hasSize(1);
  }

  @Test
  void aLeaseKnownLostIsRefusedBeforeTheJournal() throws Exception {
    try (LeaseStore keeping =
        LeaseStore.builder(db.dataSource())
            .accessPolicy(AccessPolicy.allowAll().withAdministrators(Set.of("ops")))
            .ttl(Duration.ofSeconds(2))
            .renewInterval(Duration.ofMillis(100))
            .build()) {
      Lease desktop =
          ((AcquireResult.Acquired) keeping.tryAcquire(io.leasehold.lease.AcquireRequest.of(key, "acct-7"))).lease().keepAlive();
      keeping.admin().forceRelease(key, "ops", "operator stopped the run");
      LeaseLoss loss = desktop.whenLost().get(10, TimeUnit.SECONDS);
      assertThat(loss).isNotNull();

      ScriptedChatModel model = new ScriptedChatModel().callTools("sendMessage", "{\"text\":\"late\"}").answer("x");
      assertThatThrownBy(
              () ->
                  assistant(model, LangChain4jToolFence.builder(agentFence).build(), false)
                      .chat("go", LangChain4jToolFence.parameters(desktop)))
          .isInstanceOf(RunStoppedException.class)
          .hasMessageContaining("lost its lease");
      assertThat(tools.effects).isEmpty();
      assertThat(journal.calls(key)).isEmpty();
      assertThat(stops).singleElement().extracting(RunStop::reason).isEqualTo(RunStop.Reason.LEASE_LOST);
    }
  }

  @Test
  void theNextRunListsTheCallsAnEarlierRunNeverConfirmed() {
    Lease desktop = acquire("desktop");
    ToolSpecification charge = ToolSpecification.builder().name("chargeCard").description("Charges a card").build();
    // An Error flies out of the tool, as when the process dies mid-call: nobody confirms the call.
    ToolExecutor crashing =
        (request, memoryId) -> {
          throw new OutOfMemoryError("simulated crash while charging");
        };
    LangChain4jToolFence fence = LangChain4jToolFence.builder(agentFence).build();
    Assistant assistant =
        AiServices.builder(Assistant.class)
            .chatModel(new ScriptedChatModel().callTools("chargeCard", "{\"what\":\"order 42\"}").answer("x"))
            .tools(fence.wrap(Map.of(charge, crashing)))
            .toolExecutionErrorHandler(fence.errorHandler())
            .build();
    assertThatThrownBy(() -> assistant.chat("pay", LangChain4jToolFence.parameters(desktop)))
        .isInstanceOf(OutOfMemoryError.class);

    store.admin().forceRelease(key, "ops", "the desktop died");
    Lease browser = acquire("browser");
    FencedToolExecutor.RunStart start = agentFence.startRun(browser);

    assertThat(start.inDoubt()).singleElement().satisfies(c -> {
      assertThat(c.tool()).isEqualTo("chargeCard");
      assertThat(c.state()).isEqualTo(ToolCall.State.STARTED);
      assertThat(c.token()).isEqualTo(desktop.token());
      assertThat(c.arguments().get("what").asText()).isEqualTo("<redacted>"); // issue 27: redacted by default
    });
    assertThat(start.admission().previousMark()).isEqualTo(desktop.fence());
  }

  @Test
  void aRunFoundBySessionThroughItsMemoryId() {
    Lease desktop = acquire("desktop");
    SessionLeases sessions = new SessionLeases();
    LangChain4jToolFence fence =
        LangChain4jToolFence.builder(agentFence)
            .sessions(ctx -> LeaseKey.of("acct-7", (String) ctx.chatMemoryId()), sessions)
            .build();
    ScriptedChatModel model = new ScriptedChatModel().callTools("sendMessage", "{\"text\":\"hi\"}").answer("done");
    MemoryAssistant assistant =
        AiServices.builder(MemoryAssistant.class)
            .chatModel(model)
            .chatMemoryProvider(id -> MessageWindowChatMemory.withMaxMessages(20))
            .tools(fence.wrapObjects(tools))
            .toolExecutionErrorHandler(fence.errorHandler())
            .build();

    try (SessionLeases.Registration r = sessions.register(desktop)) {
      assertThat(assistant.chat(key.sessionId(), "greet")).isEqualTo("done");
    }
    assertThat(tools.tokensSeen).containsExactly(Optional.of(desktop.token()));
  }

  @Test
  void aResolverThatCannotMapTheConversationIsAClearErrorAndNothingRuns() {
    acquire("desktop");
    LangChain4jToolFence fence =
        LangChain4jToolFence.builder(agentFence).sessions(ctx -> null, new SessionLeases()).build();
    ScriptedChatModel model = new ScriptedChatModel().callTools("sendMessage", "{\"text\":\"hi\"}").answer("done");

    assertThatThrownBy(() -> assistant(model, fence, false).chat("greet", new InvocationParameters()))
        .isInstanceOf(UnresolvedSessionException.class)
        .hasMessageContaining("mapped conversation")
        .hasMessageContaining("to no session");
    assertThat(tools.effects).isEmpty();
    assertThat(journal.calls(key)).isEmpty();
  }

  @Test
  void aCallWithNoLeaseAndNoResolverSaysHowToPassOne() {
    ScriptedChatModel model = new ScriptedChatModel().callTools("sendMessage", "{\"text\":\"hi\"}").answer("done");
    assertThatThrownBy(
            () -> assistant(model, LangChain4jToolFence.builder(agentFence).build(), false).chat("greet", new InvocationParameters()))
        .isInstanceOf(UnresolvedSessionException.class)
        .hasMessageContaining("LangChain4jToolFence.parameters(lease)");
    assertThat(tools.effects).isEmpty();
  }

  @Test
  void aLeaseOfAnotherSessionThanTheConversationIsRefused() {
    Lease desktop = acquire("desktop");
    LangChain4jToolFence fence =
        LangChain4jToolFence.builder(agentFence)
            .sessions(ctx -> LeaseKey.of("acct-7", "some-other-chat"), new SessionLeases())
            .build();
    ScriptedChatModel model = new ScriptedChatModel().callTools("sendMessage", "{\"text\":\"hi\"}").answer("done");
    assertThatThrownBy(() -> assistant(model, fence, false).chat("greet", LangChain4jToolFence.parameters(desktop)))
        .isInstanceOf(UnresolvedSessionException.class)
        .hasMessageContaining("some-other-chat");
    assertThat(tools.effects).isEmpty();
  }

  @Test
  void toolsGivenAsAMapOrThroughAProviderAreFencedToo() throws Exception {
    Lease desktop = acquire("desktop");
    takeOver();
    Method send = RecordingTools.class.getMethod("sendMessage", String.class, InvocationParameters.class);
    ToolSpecification spec = ToolSpecifications.toolSpecificationFrom(send);
    Map<ToolSpecification, ToolExecutor> plain = Map.of(spec, new DefaultToolExecutor(tools, send));
    LangChain4jToolFence fence = LangChain4jToolFence.builder(agentFence).build();

    Assistant viaMap =
        AiServices.builder(Assistant.class)
            .chatModel(new ScriptedChatModel().callTools("sendMessage", "{\"text\":\"map\"}").answer("x"))
            .tools(fence.wrap(plain))
            .toolExecutionErrorHandler(fence.errorHandler())
            .build();
    assertThatThrownBy(() -> viaMap.chat("go", LangChain4jToolFence.parameters(desktop)))
        .isInstanceOf(RunStoppedException.class);

    Assistant viaProvider =
        AiServices.builder(Assistant.class)
            .chatModel(new ScriptedChatModel().callTools("sendMessage", "{\"text\":\"provider\"}").answer("x"))
            .toolProvider(fence.wrap(request -> new ToolProviderResult(plain)))
            .toolExecutionErrorHandler(fence.errorHandler())
            .build();
    assertThatThrownBy(() -> viaProvider.chat("go", LangChain4jToolFence.parameters(desktop)))
        .isInstanceOf(RunStoppedException.class);

    assertThat(tools.effects).isEmpty();
  }
}
