package io.leasehold.adk;

import com.google.adk.agents.LlmAgent;
import com.google.adk.agents.RunConfig;
import com.google.adk.tools.BaseTool;
import com.google.adk.tools.ToolContext;
import com.google.genai.types.FunctionDeclaration;
import io.leasehold.adapters.agent.AgentToolFence;
import io.leasehold.adapters.agenttest.AgentToolFenceScenarios;
import io.leasehold.adapters.tool.FencedToolExecutor;
import io.leasehold.fencing.Fenced;
import io.leasehold.fencing.TokenVerifier;
import io.leasehold.lease.Lease;
import io.reactivex.rxjava3.core.Single;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The shared agent-tool scenarios through a real ADK runner with a scripted model, and what the
 * module's tests build their agents from: the scenarios' tools over the shared world, agents, run
 * configs.
 */
abstract class AdkAgentFixture extends AgentToolFenceScenarios {
  protected final RecordingTools tools = new RecordingTools(world);

  @Override
  protected Turn turn(Lease lease, boolean endRunOnRefusal, String answer, String... toolCalls) {
    ScriptedLlm model = new ScriptedLlm().callTools(toolCalls).answer(answer);
    String said =
        AdkTurn.run(
            agent(model, tools.tools()),
            List.of(fence(endRunOnRefusal).plugin()),
            runConfig(lease, sequential()));
    return new Turn(said, model.toolResultsSeen());
  }

  @Override
  protected void turnCallingACrashingTool(Lease lease, String tool, String arguments, Error crash) {
    BaseTool crashing =
        new BaseTool(tool, "Crashes") {
          @Override
          public Optional<FunctionDeclaration> declaration() {
            return Optional.of(
                FunctionDeclaration.builder().name(tool).description("Crashes").build());
          }

          @Override
          public Single<Map<String, Object>> runAsync(
              Map<String, Object> args, ToolContext toolContext) {
            throw crash;
          }
        };
    try {
      AdkTurn.run(
          agent(new ScriptedLlm().callTools(tool, arguments).answer("x"), List.of(crashing)),
          List.of(fence(true).plugin()),
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

  /** An ADK fence over the scenarios' agent fence. */
  protected AdkToolFence fence(boolean endRunOnRefusal) {
    return AdkToolFence.builder(agentFence).endRunOnRefusal(endRunOnRefusal).build();
  }

  /**
   * An agent fence on this test's journal that trusts every token and takes a call's idempotency
   * key from its {@code idempotencyKey} argument.
   */
  protected AgentToolFence keyedFence() {
    return AgentToolFence.builder(
            FencedToolExecutor.builder()
                .verifier(TokenVerifier.trustEveryWriter())
                .journal(journal)
                .build())
        .idempotencyKeys(AgentToolFence.IdempotencyKeys.argument("idempotencyKey"))
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

  static RunConfig runConfig(Fenced lease, RunConfig base) {
    return lease == null ? base : AdkToolFence.runConfig(base, lease);
  }
}
