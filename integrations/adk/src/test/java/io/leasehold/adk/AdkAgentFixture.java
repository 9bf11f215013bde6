package io.leasehold.adk;

import com.google.adk.agents.BaseAgent;
import com.google.adk.agents.LlmAgent;
import com.google.adk.agents.RunConfig;
import com.google.adk.events.Event;
import com.google.adk.tools.BaseTool;
import io.leasehold.adapters.agent.AgentToolFence;
import io.leasehold.adapters.agenttest.AgentToolFenceFixture;
import io.leasehold.adapters.tool.TestTools;
import io.leasehold.fencing.Fenced;
import io.leasehold.lease.Lease;
import java.util.List;

/**
 * What the module's own tests build their agents from, on the shared agent-tool fixture: the
 * scenarios' tools over the shared world, agents, run configs. It runs no scenario itself ({@link
 * AdkToolFenceScenariosTest} runs the shared ones once).
 */
abstract class AdkAgentFixture extends AgentToolFenceFixture {
  /** The arguments of booking a table for Ada. */
  static final String BOOK_ADA = "{\"name\":\"Ada\"}";

  protected final RecordingTools tools = new RecordingTools(world);

  /** An ADK fence over the scenarios' agent fence. */
  protected AdkToolFence fence(boolean endRunOnRefusal) {
    return AdkToolFence.builder(agentFence).endRunOnRefusal(endRunOnRefusal).build();
  }

  /**
   * An agent fence on this test's journal that trusts every token and takes a call's idempotency
   * key from its {@code idempotencyKey} argument, with {@code run} started on it.
   */
  protected AgentToolFence keyedFenceRunning(Lease run) {
    AgentToolFence keyed =
        AgentToolFence.builder(TestTools.trustingExecutor(journal).build())
            .idempotencyKeys(AgentToolFence.IdempotencyKeys.argument("idempotencyKey"))
            .build();
    keyed.startRun(run);
    return keyed;
  }

  /**
   * An agent, "assistant", whose model books a table for Ada and then answers; it has the
   * scenarios' tools, and the caller may add callbacks or replace them.
   */
  protected LlmAgent.Builder bookingAda(String answer) {
    return LlmAgent.builder()
        .name("assistant")
        .model(new ScriptedLlm().callTools("bookTable", BOOK_ADA).answer(answer))
        .tools(tools.tools());
  }

  /** One turn of {@code agent} through {@code fence}'s plugin, carrying {@code lease}. */
  static List<Event> turnOf(BaseAgent agent, AdkToolFence fence, Fenced lease) {
    return new AdkTurn(agent, List.of(fence.plugin())).say("go", runConfig(lease, sequential()));
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
