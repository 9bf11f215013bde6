package io.leasehold.adk;

import com.fasterxml.jackson.databind.node.TextNode;
import com.google.adk.agents.LlmAgent;
import com.google.adk.tools.Annotations.Schema;
import com.google.adk.tools.FunctionTool;
import io.leasehold.adapters.agent.AgentToolFence;
import io.leasehold.adapters.tool.FencedToolExecutor;
import io.leasehold.adapters.tool.JdbcToolJournal;
import io.leasehold.adapters.tool.ToolJournalSchema;
import io.leasehold.fencing.Fenced;
import io.leasehold.fencing.TokenVerifier;
import io.leasehold.testing.TestDatabaseExtension;
import io.leasehold.testkit.AgentFrameworkContract;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
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

  /** The harness: one agent whose one tool, {@code record}, ADK builds from its method. */
  public static class Harness implements AgentHarness {
    private final AgentToolFence agentFence =
        AgentToolFence.builder(
                FencedToolExecutor.builder()
                    .verifier(TokenVerifier.trustEveryWriter())
                    .journal(JdbcToolJournal.create(db.dataSource()))
                    .build())
            .idempotencyKeys(AgentToolFence.IdempotencyKeys.argument("idempotencyKey"))
            .build();
    private final AdkToolFence fence =
        AdkToolFence.builder(agentFence).build(); // a refusal ends the run
    private final List<String> effects = new CopyOnWriteArrayList<>();

    @Override
    public void call(Fenced run, String text, Optional<String> idempotencyKey) {
      String arguments =
          "{\"text\":"
              + TextNode.valueOf(text)
              + ",\"idempotencyKey\":"
              + TextNode.valueOf(idempotencyKey.orElse(""))
              + "}";
      LlmAgent agent =
          LlmAgent.builder()
              .name("recorder")
              .model(new ScriptedLlm().callTools("record", arguments).answer("done"))
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
      effects.add(text);
      return "recorded " + text;
    }

    @Override
    public void startRun(Fenced run) {
      agentFence.startRun(run);
    }

    @Override
    public List<String> effects() {
      return List.copyOf(effects);
    }
  }

  @Override
  public AgentHarness agentHarness() {
    return new Harness();
  }
}
