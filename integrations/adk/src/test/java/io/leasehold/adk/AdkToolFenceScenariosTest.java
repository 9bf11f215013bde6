package io.leasehold.adk;

import static io.leasehold.adk.AdkAgentFixture.agent;
import static io.leasehold.adk.AdkAgentFixture.inParallel;
import static io.leasehold.adk.AdkAgentFixture.runConfig;
import static io.leasehold.adk.AdkAgentFixture.sequential;

import com.google.adk.agents.RunConfig;
import com.google.adk.tools.BaseTool;
import com.google.adk.tools.ToolContext;
import com.google.genai.types.FunctionDeclaration;
import io.leasehold.adapters.agenttest.ParallelToolCallScenarios;
import io.leasehold.lease.Lease;
import io.reactivex.rxjava3.core.Single;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The shared agent-tool scenarios, the parallel-call ones too, through a real ADK runner with a
 * scripted model: the module's only test class that runs them (its other classes stand on {@link
 * AdkAgentFixture}, which runs none).
 */
class AdkToolFenceScenariosTest extends ParallelToolCallScenarios {
  private final RecordingTools tools = new RecordingTools(world);

  AdkToolFenceScenariosTest() {
    super("AdkToolFence.runConfig(lease)", "session");
  }

  @Override
  protected Turn turnInParallel(
      Lease lease, boolean endRunOnRefusal, String answer, String... toolCalls) {
    return turn(inParallel(), lease, endRunOnRefusal, answer, toolCalls);
  }

  @Override
  protected Turn turn(Lease lease, boolean endRunOnRefusal, String answer, String... toolCalls) {
    return turn(sequential(), lease, endRunOnRefusal, answer, toolCalls);
  }

  private Turn turn(
      RunConfig mode, Lease lease, boolean endRunOnRefusal, String answer, String... toolCalls) {
    ScriptedLlm model = new ScriptedLlm().callTools(toolCalls).answer(answer);
    String said =
        AdkTurn.run(
            agent(model, tools.tools()),
            List.of(fence(endRunOnRefusal).plugin()),
            runConfig(lease, mode));
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
  protected void turnResolvedToNoSession(String... toolCalls) {
    AdkToolFence fence = AdkToolFence.builder(agentFence).sessions(ctx -> null, sessions).build();
    ScriptedLlm model = new ScriptedLlm().callTools(toolCalls).answer("x");
    AdkTurn.run(agent(model, tools.tools()), List.of(fence.plugin()), sequential());
  }

  private AdkToolFence fence(boolean endRunOnRefusal) {
    return AdkToolFence.builder(agentFence).endRunOnRefusal(endRunOnRefusal).build();
  }
}
