package io.leasehold.springai;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.leasehold.adapters.agent.AgentToolFence;
import io.leasehold.adapters.tool.FencedToolExecutor;
import io.leasehold.adapters.tool.MemoryToolJournal;
import io.leasehold.fencing.Fenced;
import io.leasehold.fencing.TokenVerifier;
import io.leasehold.testkit.AgentFrameworkContract;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.tool.annotation.Tool;

/** The testkit's agent-framework contract through a Spring AI chat client with fenced tools. */
class SpringAiAgentContractTest implements AgentFrameworkContract {
  /** The one tool: records what reached the world. */
  public static class Recorder {
    final List<String> effects = new CopyOnWriteArrayList<>();

    /**
     * Records a text.
     *
     * @param text the text
     * @param idempotencyKey the call's idempotency key, or empty
     * @return what happened
     */
    @Tool(description = "Records a text")
    public String record(String text, String idempotencyKey) {
      effects.add(text);
      return "recorded " + text;
    }
  }

  @Override
  public AgentHarness agentHarness() {
    Recorder recorder = new Recorder();
    AgentToolFence agentFence =
        AgentToolFence.builder(
                FencedToolExecutor.builder().verifier(TokenVerifier.trustEveryWriter()).journal(new MemoryToolJournal()).build())
            .idempotencyKeys(AgentToolFence.IdempotencyKeys.argument("idempotencyKey"))
            .build();
    SpringAiToolFence fence = SpringAiToolFence.builder(agentFence).build(); // a refusal ends the run
    ObjectMapper json = new ObjectMapper();
    return new AgentHarness() {
      @Override
      public void call(Fenced run, String text, Optional<String> idempotencyKey) {
        String arguments =
            json.createObjectNode().put("text", text).put("idempotencyKey", idempotencyKey.orElse("")).toString();
        ScriptedChatModel model = new ScriptedChatModel().callTools("record", arguments).answer("done");
        ChatClient.builder(model).build().prompt().user("record " + text)
            .tools(fence.wrapObjects(recorder))
            .toolContext(SpringAiToolFence.toolContext(run))
            .call()
            .content();
      }

      @Override
      public void startRun(Fenced run) {
        agentFence.startRun(run);
      }

      @Override
      public List<String> effects() {
        return List.copyOf(recorder.effects);
      }
    };
  }
}
