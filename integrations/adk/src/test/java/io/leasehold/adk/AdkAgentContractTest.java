package io.leasehold.adk;

import com.google.adk.agents.LlmAgent;
import com.google.adk.tools.Annotations.Schema;
import com.google.adk.tools.FunctionTool;
import io.leasehold.adapters.agent.AgentToolFence;
import io.leasehold.adapters.agenttest.RecordingAgentHarness;
import io.leasehold.adapters.tool.FencedToolExecutor;
import io.leasehold.adapters.tool.JdbcToolJournal;
import io.leasehold.adapters.tool.ToolJournalSchema;
import io.leasehold.fencing.Fenced;
import io.leasehold.fencing.TokenVerifier;
import io.leasehold.testing.TestDatabaseExtension;
import io.leasehold.testkit.AgentFrameworkContract;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The testkit's agent-framework contract through a real ADK runner whose model is scripted (no
 * network), with the fence's plugin registered and the tool journal on PostgreSQL.
 */
class AdkAgentContractTest implements AgentFrameworkContract {
  /** The tool journal's tables; each contract test uses a session of its own. */
  @RegisterExtension
  static final TestDatabaseExtension db =
      TestDatabaseExtension.withTemplate(
          "adk_contract", ds -> ToolJournalSchema.defaults().apply(ds));

  /**
   * The harness: one agent whose one tool, {@code record}, ADK builds from its method. Its fence
   * journals on PostgreSQL (the shared harness's own fence, on a memory journal, is not used).
   */
  public static class Harness extends RecordingAgentHarness {
    private final AgentToolFence jdbcFence =
        AgentToolFence.builder(
                FencedToolExecutor.builder()
                    .verifier(TokenVerifier.trustEveryWriter())
                    .journal(JdbcToolJournal.create(db.dataSource()))
                    .build())
            .idempotencyKeys(AgentToolFence.IdempotencyKeys.argument("idempotencyKey"))
            .build();
    private final AdkToolFence fence =
        AdkToolFence.builder(jdbcFence).build(); // a refusal ends the run

    @Override
    public void call(Fenced run, String text, Optional<String> idempotencyKey) {
      LlmAgent agent =
          LlmAgent.builder()
              .name("recorder")
              .model(
                  new ScriptedLlm()
                      .callTools("record", recordArguments(text, idempotencyKey))
                      .answer("done"))
              .tools(FunctionTool.create(this, "record"))
              .build();
      AdkTurn.run(agent, List.of(fence.plugin()), AdkToolFence.runConfig(run));
    }

    /**
     * Records a text.
     *
     * @param text the text
     * @param idempotencyKey the call's idempotency key, or empty
     * @return what happened
     */
    @Schema(description = "Records a text")
    public String record(
        @Schema(name = "text") String text,
        @Schema(name = "idempotencyKey") String idempotencyKey) {
      return record(text);
    }

    @Override
    public void startRun(Fenced run) {
      jdbcFence.startRun(run);
    }
  }

  @Override
  public AgentHarness agentHarness() {
    return new Harness();
  }
}
