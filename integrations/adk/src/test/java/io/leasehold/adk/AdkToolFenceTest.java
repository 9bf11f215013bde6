package io.leasehold.adk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.google.adk.agents.LlmAgent;
import com.google.adk.plugins.Plugin;
import com.google.adk.tools.AgentTool;
import com.google.adk.tools.BaseTool;
import com.google.adk.tools.FunctionTool;
import com.google.adk.tools.ToolContext;
import com.google.genai.types.FunctionDeclaration;
import io.leasehold.adapters.agent.AgentToolFence;
import io.leasehold.adapters.agent.RunStoppedException;
import io.leasehold.adapters.agent.SessionLeases;
import io.leasehold.adapters.agent.UnresolvedSessionException;
import io.leasehold.adapters.tool.DuplicateCallException;
import io.leasehold.adapters.tool.FencedToolExecutor;
import io.leasehold.adapters.tool.ToolCall;
import io.leasehold.adapters.tool.ToolScope;
import io.leasehold.fencing.Fenced;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.Refusal;
import io.leasehold.fencing.SignatureScheme;
import io.leasehold.fencing.SigningKey;
import io.leasehold.fencing.TokenKeySet;
import io.leasehold.fencing.TokenVerifier;
import io.leasehold.lease.Lease;
import io.reactivex.rxjava3.core.Single;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * ADK agents with fenced tools, through a real ADK runner: what is ADK's own (the runner plugin,
 * sub-agents, agent tools, callbacks, the run config that carries the lease); the shared scenarios
 * run in {@link AdkToolFenceScenariosTest}.
 */
@SuppressWarnings("unchecked") // ADK's callbacks hand responses over as Object
class AdkToolFenceTest extends AdkAgentFixture {
  @Test
  void theRefusalTheModelReadsCarriesTheWrittenRefusal() {
    Lease desktop = acquire("desktop");
    Lease browser = takeOver();
    Map<String, Object>[] response = new Map[1];
    LlmAgent agent =
        bookingAda("x")
            .afterToolCallbackSync(
                (ctx, tool, args, toolContext, result) -> {
                  response[0] = (Map<String, Object>) result;
                  return Optional.empty();
                })
            .build();

    AdkTurn.run(agent, List.of(fence(false).plugin()), runConfig(desktop, sequential()));

    assertThat(response[0].get("error").toString()).contains("superseded", "was NOT run");
    assertThat(Refusal.fromWritten((Map<?, ?>) response[0].get(AdkToolFence.REFUSAL_KEY)))
        .hasValueSatisfying(
            r -> {
              assertThat(r.reason()).isEqualTo(Refusal.Reason.SUPERSEDED);
              assertThat(r.highestSeen()).hasValue(browser.fence());
            });
    assertThat(world.effects).isEmpty();
  }

  @Test
  void aSubAgentsToolsAreFencedToo() {
    Lease desktop = acquire("desktop");
    // One model for both agents: the root transfers to the booker, the booker books; the browser
    // takes the session over while the booker's model is "thinking".
    ScriptedLlm model =
        new ScriptedLlm()
            .callTools("transfer_to_agent", "{\"agent_name\":\"booker\"}")
            .callToolsAfter(this::takeOver, "bookTable", "{\"name\":\"Ada\"}")
            .answer("x");
    LlmAgent booker = booker(model);
    LlmAgent root = LlmAgent.builder().name("assistant").model(model).subAgents(booker).build();

    assertThatThrownBy(() -> turnOf(root, fence(true), desktop))
        .isInstanceOf(RunStoppedException.class)
        .hasMessageContaining("superseded");
    assertThat(world.effects).isEmpty();
    assertThat(callsOf(desktop))
        .extracting(ToolCall::tool)
        .containsExactly("transfer_to_agent"); // ADK's own tools are fenced as well
  }

  @Test
  void aToolAddedToTheRequestAfterThePluginRanDoesNotRun() {
    Lease desktop = acquire("desktop");
    // An agent callback that runs after the plugin adds a tool the plugin never saw.
    LlmAgent agent =
        bookingAda("x")
            .tools(List.of())
            .beforeModelCallbackSync(
                (ctx, request) -> {
                  request.appendTools(List.of(tools.tools().get(1)));
                  return Optional.empty();
                })
            .build();

    assertThatThrownBy(() -> turnOf(agent, fence(true), desktop))
        .isInstanceOf(UnfencedToolException.class)
        .hasMessageContaining("bookTable")
        .hasMessageContaining("AdkToolFence.wrap(tool)");
    assertNothingRan();
  }

  @Test
  void aBeforeToolCallbackThatAnswersInTheToolsPlaceRunsNothing() {
    Lease desktop = supersededDesktop();
    LlmAgent agent =
        bookingAda("done")
            .beforeToolCallbackSync(
                (ctx, tool, args, toolContext) -> Optional.of(Map.of("result", "cached")))
            .build();

    assertThat(AdkTurn.lastText(turnOf(agent, fence(true), desktop))).isEqualTo("done");
    // The callback answered; neither the tool nor the fence was reached, and nothing ran.
    assertThat(world.effects).isEmpty();
    assertThat(callsOf(desktop)).isEmpty();
  }

  @Test
  void aSupersededRunsAgentToolCallNeverStartsTheAgentItWraps() {
    Lease desktop = supersededDesktop();
    ScriptedLlm inner = new ScriptedLlm().callTools("bookTable", "{\"name\":\"Ada\"}").answer("ok");
    LlmAgent booker = booker(inner);
    LlmAgent root =
        agent(
            new ScriptedLlm().callTools("booker", "{\"request\":\"book for Ada\"}").answer("x"),
            List.of(AgentTool.create(booker)));

    assertThatThrownBy(() -> turnOf(root, fence(true), desktop))
        .isInstanceOf(RunStoppedException.class);
    assertThat(world.effects).isEmpty();
    assertThat(inner.toolResultsSeen()).isEmpty();
    assertThat(callsOf(desktop)).isEmpty();
  }

  @Test
  void anAgentToolsAgentThatSharesThePluginButNotTheLeaseRunsNoTool() {
    Lease desktop = acquire("desktop");
    LlmAgent booker =
        booker(new ScriptedLlm().callTools("bookTable", "{\"name\":\"Ada\"}").answer("ok"));
    LlmAgent root =
        agent(
            new ScriptedLlm().callTools("booker", "{\"request\":\"book for Ada\"}").answer("x"),
            List.of(AgentTool.create(booker, false, true))); // includePlugins

    // ADK runs the wrapped agent with a run config of its own: its tool calls carry no lease.
    assertThatThrownBy(() -> turnOf(root, fence(true), desktop))
        .isInstanceOf(UnresolvedSessionException.class)
        .hasMessageContaining("AdkToolFence.runConfig(lease)");
    assertThat(world.effects).isEmpty();
  }

  @Test
  void toolsWrappedInTheAgentRunWithoutThePluginAndAreFencedOnceWithIt() {
    Lease desktop = acquire("desktop");
    AdkToolFence fence = fence(true);
    List<BaseTool> wrapped = fence.wrap(tools.tools());
    assertThat(fence.wrap(wrapped.get(0))).isSameAs(wrapped.get(0));

    for (List<Plugin> plugins : List.of(List.<Plugin>of(), List.of(fence.plugin()))) {
      ScriptedLlm model =
          new ScriptedLlm()
              .callTools("sendMessage", "{\"text\":\"hi\"}")
              .callTools("bookTable", "{\"name\":\"Ada\"}")
              .answer("ok");
      assertThat(AdkTurn.run(agent(model, wrapped), plugins, runConfig(desktop, sequential())))
          .isEqualTo("ok");
    }

    assertThat(world.effects).containsExactly("sent:hi", "booked:Ada", "sent:hi", "booked:Ada");
    assertThat(world.tokensSeen).containsOnly(Optional.of(desktop.token()));
    assertThat(callsOf(desktop)).hasSize(4); // one record per call: never fenced twice
  }

  @Test
  void aRunFoundBySessionThroughTheAdkSession() {
    Lease desktop = acquire("desktop");
    AdkToolFence fence =
        AdkToolFence.builder(agentFence)
            .sessions(
                ctx -> LeaseKey.of("acct-7", ctx.invocationContext().session().id()), sessions)
            .build();
    ScriptedLlm model = new ScriptedLlm().callTools("bookTable", "{\"name\":\"Ada\"}").answer("ok");

    try (SessionLeases.Registration r = sessions.register(desktop)) {
      assertThat(
              AdkTurn.run(
                  agent(model, tools.tools()),
                  List.of(fence.plugin()),
                  sequential(),
                  key.sessionId()))
          .isEqualTo("ok");
    }
    assertThat(world.effects).containsExactly("booked:Ada");
    assertThat(callsOf(desktop)).hasSize(1);
  }

  @Test
  void aForgedTokenIsRefusedAndTheToolDoesNotRun() {
    SigningKey signing = SigningKey.generate(SignatureScheme.HMAC_SHA256, "k1");
    FencingToken forged = new FencingToken(key, 4, UUID.randomUUID()); // unsigned

    assertThat(
            bookingRefused(
                FencedToolExecutor.builder()
                    .verifier(TokenVerifier.signedBy(TokenKeySet.of(signing.verificationKey()))),
                forged,
                "{\"name\":\"Ada\"}"))
        .isIn(Refusal.Reason.FORGED, Refusal.Reason.MISSING);
    assertNothingRan();
  }

  @Test
  void aCallOutsideItsKeysScopeIsRefusedAndTheToolDoesNotRun() {
    assertThat(
            bookingRefused(
                FencedToolExecutor.builder()
                    .verifier(TokenVerifier.trustEveryWriter())
                    .scope(ToolScope.argumentUnderKey("name")),
                acquire("desktop"),
                "{\"name\":\"other-acct/chat/Ada\"}"))
        .isEqualTo(Refusal.Reason.OUT_OF_SCOPE);
    assertNothingRan();
  }

  @Test
  void oneIdempotencyKeyRunsOnceAcrossParallelCallsAndInvocations() throws Exception {
    Lease desktop = acquire("desktop");
    AgentToolFence keyed = keyedFenceRunning(desktop);
    String call = "{\"idempotencyKey\":\"k-1\",\"name\":\"Ada\"}";
    AdkToolFence fence = AdkToolFence.builder(keyed).endRunOnRefusal(false).build();
    List<BaseTool> pay = List.of(FunctionTool.create(tools, "pay"));

    Throwable parallel =
        catchThrowable(
            () ->
                AdkTurn.run(
                    agent(
                        new ScriptedLlm().callTools("pay", call, "pay", call).answer("done"), pay),
                    List.of(fence.plugin()),
                    runConfig(desktop, inParallel())));
    // The second call either finds the first finished (and is answered with its result) or still
    // running (and is not started).
    if (parallel != null) {
      assertThat(parallel).isInstanceOf(DuplicateCallException.class);
      // The turn ended at the refused duplicate; the first call may still be running.
      assertThat(tools.paid.await(30, TimeUnit.SECONDS)).as("the first call paid").isTrue();
    }
    assertThat(world.effects).containsExactly("paid:Ada");

    // Another invocation of the same run, with the same key: answered from the journal.
    ScriptedLlm again = new ScriptedLlm().callTools("pay", call).answer("done again");
    assertThat(
            AdkTurn.run(
                agent(again, pay), List.of(fence.plugin()), runConfig(desktop, sequential())))
        .isEqualTo("done again");
    assertThat(again.toolResultsSeen()).containsExactly("paid");
    assertThat(world.effects).containsExactly("paid:Ada");
  }

  @Test
  void aToolThatThrowsAnErrorIsNotRunAgainByTheSameKey() {
    Lease desktop = acquire("desktop");
    AgentToolFence keyed = keyedFenceRunning(desktop);
    AtomicInteger runs = new AtomicInteger();
    BaseTool crashing =
        new BaseTool("pay", "Pays") {
          @Override
          public Optional<FunctionDeclaration> declaration() {
            return Optional.of(
                FunctionDeclaration.builder().name("pay").description("Pays").build());
          }

          @Override
          public Single<Map<String, Object>> runAsync(Map<String, Object> a, ToolContext c) {
            runs.incrementAndGet();
            return Single.error(new StackOverflowError("after the side effect"));
          }
        };
    String call = "{\"idempotencyKey\":\"k-9\",\"name\":\"Ada\"}";
    ScriptedLlm model = new ScriptedLlm().callTools("pay", call).callTools("pay", call).answer("y");
    AdkTurn turn =
        new AdkTurn(
            agent(model, List.of(crashing)),
            List.of(AdkToolFence.builder(keyed).endRunOnRefusal(false).build().plugin()));

    assertThatThrownBy(() -> turn.say("go", runConfig(desktop, sequential())))
        .hasRootCauseInstanceOf(StackOverflowError.class);
    // The crashed call is still open in the journal (in doubt): the retry is refused, not run.
    assertThatThrownBy(() -> turn.say("retry", runConfig(desktop, sequential())))
        .isInstanceOf(DuplicateCallException.class)
        .hasMessageContaining("k-9");

    assertThat(runs).hasValue(1);
  }

  /**
   * One turn through the plugin of a fence over {@code executor} (on this test's journal) in which
   * the model books a table: the run must be stopped.
   *
   * @return why
   */
  private Refusal.Reason bookingRefused(
      FencedToolExecutor.Builder executor, Fenced run, String arguments) {
    AgentToolFence agentFence = AgentToolFence.builder(executor.journal(journal).build()).build();
    Throwable thrown =
        catchThrowable(
            () ->
                AdkTurn.run(
                    agent(
                        new ScriptedLlm().callTools("bookTable", arguments).answer("x"),
                        tools.tools()),
                    List.of(AdkToolFence.builder(agentFence).build().plugin()),
                    AdkToolFence.runConfig(sequential(), run)));
    assertThat(thrown).isInstanceOf(RunStoppedException.class);
    return ((RunStoppedException) thrown).stop().reason();
  }

  /** An agent, "booker", with the scenarios' tools. */
  private LlmAgent booker(ScriptedLlm model) {
    return LlmAgent.builder()
        .name("booker")
        .description("Books tables")
        .model(model)
        .tools(tools.tools())
        .build();
  }
}
