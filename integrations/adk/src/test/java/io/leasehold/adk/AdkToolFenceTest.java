package io.leasehold.adk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.google.adk.agents.LlmAgent;
import com.google.adk.agents.RunConfig;
import com.google.adk.plugins.Plugin;
import com.google.adk.tools.AgentTool;
import com.google.adk.tools.BaseTool;
import com.google.adk.tools.ToolContext;
import com.google.genai.types.FunctionDeclaration;
import io.leasehold.adapters.agent.AgentToolFence;
import io.leasehold.adapters.agent.RunStoppedException;
import io.leasehold.adapters.agent.SessionLeases;
import io.leasehold.adapters.agent.UnresolvedSessionException;
import io.leasehold.adapters.agenttest.AgentToolFenceScenarios;
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
import org.junit.jupiter.api.Test;

/**
 * ADK agents with fenced tools, through a real ADK runner: the shared agent-tool scenarios, and
 * what is ADK's own (the runner plugin, parallel tool execution, sub-agents, agent tools,
 * callbacks, the run config that carries the lease).
 */
@SuppressWarnings("unchecked") // ADK's callbacks hand responses over as Object
class AdkToolFenceTest extends AgentToolFenceScenarios {
  private final RecordingTools tools = new RecordingTools(world);

  @Override
  protected Turn turn(Lease lease, boolean endRunOnRefusal, String answer, String... toolCalls) {
    ScriptedLlm model = new ScriptedLlm().callTools(toolCalls).answer(answer);
    AdkToolFence fence = AdkToolFence.builder(agentFence).endRunOnRefusal(endRunOnRefusal).build();
    String said =
        AdkTurn.run(
            agent(model, tools.tools()), List.of(fence.plugin()), runConfig(lease, sequential()));
    return new Turn(said, model.toolResultsSeen());
  }

  @Override
  protected void turnCallingACrashingTool(Lease lease, String tool, String arguments, Error crash) {
    BaseTool crashing =
        new BaseTool(tool, "Crashes") {
          @Override
          public java.util.Optional<FunctionDeclaration> declaration() {
            return java.util.Optional.of(
                FunctionDeclaration.builder().name(tool).description("Crashes").build());
          }

          @Override
          public Single<Map<String, Object>> runAsync(
              Map<String, Object> args, ToolContext toolContext) {
            throw crash;
          }
        };
    AdkToolFence fence = AdkToolFence.builder(agentFence).build();
    try {
      AdkTurn.run(
          agent(new ScriptedLlm().callTools(tool, arguments).answer("x"), List.of(crashing)),
          List.of(fence.plugin()),
          runConfig(lease, sequential()));
    } catch (RuntimeException e) {
      // ADK wraps whatever a tool throws that is not a RuntimeException, an Error too.
      if (e.getCause() == crash && ("Failed to call tool: " + tool).equals(e.getMessage())) {
        throw crash;
      }
      throw e;
    }
  }

  @Override
  protected String howToPassALease() {
    return "AdkToolFence.runConfig(lease)";
  }

  @Override
  protected String asTheModelReadsIt(String returned) {
    return returned;
  }

  private AdkToolFence fence(boolean endRunOnRefusal) {
    return AdkToolFence.builder(agentFence).endRunOnRefusal(endRunOnRefusal).build();
  }

  @Test
  void parallelCallsOfASupersededTurnAreAllRefused() {
    Lease desktop = acquire("desktop");
    takeOver();
    ScriptedLlm model =
        new ScriptedLlm()
            .callTools(
                "sendMessage", "{\"text\":\"a\"}",
                "bookTable", "{\"name\":\"b\"}",
                "sendMessage", "{\"text\":\"c\"}",
                "bookTable", "{\"name\":\"d\"}")
            .answer("stopped");

    String said =
        AdkTurn.run(
            agent(model, tools.tools()),
            List.of(fence(false).plugin()),
            runConfig(desktop, inParallel()));

    assertThat(said).isEqualTo("stopped");
    assertThat(world.effects).isEmpty();
    assertThat(model.toolResultsSeen())
        .hasSize(4)
        .allSatisfy(r -> assertThat(r).contains("was NOT run"));
    assertThat(stops).hasSize(1);
    assertThat(callsOf(desktop)).isEmpty();
  }

  @Test
  void parallelCallsOfACurrentRunAllRun() {
    Lease desktop = acquire("desktop");
    ScriptedLlm model =
        new ScriptedLlm()
            .callTools(
                "sendMessage", "{\"text\":\"a\"}",
                "bookTable", "{\"name\":\"b\"}",
                "sendMessage", "{\"text\":\"c\"}")
            .answer("ok");

    assertThat(
            AdkTurn.run(
                agent(model, tools.tools()),
                List.of(fence(true).plugin()),
                runConfig(desktop, inParallel())))
        .isEqualTo("ok");
    assertThat(world.effects).containsExactlyInAnyOrder("sent:a", "booked:b", "sent:c");
    assertThat(callsOf(desktop))
        .hasSize(3)
        .allSatisfy(c -> assertThat(c.state()).isEqualTo(ToolCall.State.FINISHED));
  }

  @Test
  void theRefusalTheModelReadsCarriesTheWrittenRefusal() {
    Lease desktop = acquire("desktop");
    Lease browser = takeOver();
    Map<String, Object>[] response = new Map[1];
    LlmAgent agent =
        LlmAgent.builder()
            .name("assistant")
            .model(new ScriptedLlm().callTools("bookTable", "{\"name\":\"Ada\"}").answer("x"))
            .tools(tools.tools())
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

    assertThatThrownBy(
            () ->
                AdkTurn.run(root, List.of(fence(true).plugin()), runConfig(desktop, sequential())))
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
        LlmAgent.builder()
            .name("assistant")
            .model(new ScriptedLlm().callTools("bookTable", "{\"name\":\"Ada\"}").answer("x"))
            .beforeModelCallbackSync(
                (ctx, request) -> {
                  request.appendTools(List.of(tools.tools().get(1)));
                  return Optional.empty();
                })
            .build();

    assertThatThrownBy(
            () ->
                AdkTurn.run(agent, List.of(fence(true).plugin()), runConfig(desktop, sequential())))
        .isInstanceOf(UnfencedToolException.class)
        .hasMessageContaining("bookTable")
        .hasMessageContaining("AdkToolFence.wrap(tool)");
    assertNothingRan();
  }

  @Test
  void aBeforeToolCallbackThatAnswersInTheToolsPlaceRunsNothing() {
    Lease desktop = acquire("desktop");
    takeOver();
    LlmAgent agent =
        LlmAgent.builder()
            .name("assistant")
            .model(new ScriptedLlm().callTools("bookTable", "{\"name\":\"Ada\"}").answer("done"))
            .tools(tools.tools())
            .beforeToolCallbackSync(
                (ctx, tool, args, toolContext) -> Optional.of(Map.of("result", "cached")))
            .build();

    assertThat(AdkTurn.run(agent, List.of(fence(true).plugin()), runConfig(desktop, sequential())))
        .isEqualTo("done");
    // The callback answered; neither the tool nor the fence was reached, and nothing ran.
    assertThat(world.effects).isEmpty();
    assertThat(callsOf(desktop)).isEmpty();
  }

  @Test
  void aSupersededRunsAgentToolCallNeverStartsTheAgentItWraps() {
    Lease desktop = acquire("desktop");
    takeOver();
    ScriptedLlm inner = new ScriptedLlm().callTools("bookTable", "{\"name\":\"Ada\"}").answer("ok");
    LlmAgent booker = booker(inner);
    LlmAgent root =
        agent(
            new ScriptedLlm().callTools("booker", "{\"request\":\"book for Ada\"}").answer("x"),
            List.of(AgentTool.create(booker)));

    assertThatThrownBy(
            () ->
                AdkTurn.run(root, List.of(fence(true).plugin()), runConfig(desktop, sequential())))
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
    assertThatThrownBy(
            () ->
                AdkTurn.run(root, List.of(fence(true).plugin()), runConfig(desktop, sequential())))
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

  static RunConfig inParallel() {
    return RunConfig.builder()
        .toolExecutionMode(RunConfig.ToolExecutionMode.PARALLEL_SUBSCRIBE)
        .build();
  }

  static LlmAgent agent(ScriptedLlm model, List<? extends BaseTool> tools) {
    return LlmAgent.builder().name("assistant").model(model).tools(tools).build();
  }

  static RunConfig sequential() {
    return RunConfig.builder().toolExecutionMode(RunConfig.ToolExecutionMode.SEQUENTIAL).build();
  }

  static RunConfig runConfig(Lease lease, RunConfig base) {
    return lease == null ? base : AdkToolFence.runConfig(base, lease);
  }
}
