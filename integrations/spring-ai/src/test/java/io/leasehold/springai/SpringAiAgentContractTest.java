package io.leasehold.springai;

import io.leasehold.adapters.agenttest.RecordingAgentHarness;
import io.leasehold.fencing.Fenced;
import io.leasehold.testkit.AgentFrameworkContract;
import java.util.Optional;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.tool.annotation.Tool;

/** The testkit's agent-framework contract through a Spring AI chat client with fenced tools. */
class SpringAiAgentContractTest implements AgentFrameworkContract {
  /** The one tool, as Spring AI sees it. */
  public static class Recorder {
    private final RecordingAgentHarness harness;

    Recorder(RecordingAgentHarness harness) {
      this.harness = harness;
    }

    /**
     * Records a text.
     *
     * @param text the text
     * @param idempotencyKey the call's idempotency key, or empty
     * @return what happened
     */
    @Tool(description = "Records a text")
    public String record(String text, String idempotencyKey) {
      return harness.record(text);
    }
  }

  @Override
  public AgentHarness agentHarness() {
    return new RecordingAgentHarness() {
      private final SpringAiToolFence fence = SpringAiToolFence.builder(agentFence).build(); // a refusal ends the run
      private final Recorder recorder = new Recorder(this);

      @Override
      public void call(Fenced run, String text, Optional<String> idempotencyKey) {
        ScriptedChatModel model = new ScriptedChatModel().callTools("record", recordArguments(text, idempotencyKey)).answer("done");
        ChatClient.builder(model).build().prompt().user("record " + text)
            .tools(fence.wrapObjects(recorder))
            .toolContext(SpringAiToolFence.toolContext(run))
            .call()
            .content();
      }
    };
  }
}
