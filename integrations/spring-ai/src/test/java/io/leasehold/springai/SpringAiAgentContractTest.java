package io.leasehold.springai;

import io.leasehold.adapters.agenttest.RecordingAgentHarness;
import io.leasehold.fencing.Fenced;
import io.leasehold.testkit.AgentFrameworkContract;
import java.util.Optional;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.tool.annotation.Tool;

/** The testkit's agent-framework contract through a Spring AI chat client with fenced tools. */
class SpringAiAgentContractTest implements AgentFrameworkContract {
  @Override
  public AgentHarness agentHarness() {
    return new Harness();
  }

  /** The harness, whose one tool Spring AI finds by its annotation. */
  public static class Harness extends RecordingAgentHarness {
    private final SpringAiToolFence fence =
        SpringAiToolFence.builder(agentFence).build(); // a refusal ends the run

    /**
     * Records a text.
     *
     * @param text the text
     * @param idempotencyKey the call's idempotency key, or empty
     * @return what happened
     */
    @Tool(description = "Records a text")
    public String record(String text, String idempotencyKey) {
      return record(text);
    }

    @Override
    public void call(Fenced run, String text, Optional<String> idempotencyKey) {
      ScriptedChatModel model =
          new ScriptedChatModel()
              .callTools("record", recordArguments(text, idempotencyKey))
              .answer("done");
      ChatClient.builder(model)
          .build()
          .prompt()
          .user("record " + text)
          .tools(fence.wrapObjects(this))
          .toolContext(SpringAiToolFence.toolContext(run))
          .call()
          .content();
    }
  }
}
