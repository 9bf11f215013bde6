package io.leasehold.adk;

import com.google.adk.agents.LlmAgent;
import com.google.adk.agents.RunConfig;
import com.google.adk.tools.BaseTool;
import io.leasehold.adapters.agent.AgentToolFence;
import io.leasehold.adapters.agenttest.AgentToolFenceFixture;
import io.leasehold.adapters.tool.FencedToolExecutor;
import io.leasehold.fencing.Fenced;
import io.leasehold.fencing.TokenVerifier;
import java.util.List;

/**
 * What the module's own tests build their agents from, on the shared agent-tool fixture: the
 * scenarios' tools over the shared world, agents, run configs. It runs no scenario itself ({@link
 * AdkToolFenceScenariosTest} runs the shared ones once).
 */
abstract class AdkAgentFixture extends AgentToolFenceFixture {
  protected final RecordingTools tools = new RecordingTools(world);

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
