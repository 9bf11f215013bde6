package io.leasehold.langchain4j;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.langchain4j.agent.tool.Tool;
import dev.langchain4j.invocation.InvocationParameters;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.UserMessage;
import io.leasehold.adapters.agent.AgentToolFence;
import io.leasehold.adapters.tool.FencedToolExecutor;
import io.leasehold.adapters.tool.MemoryToolJournal;
import io.leasehold.fencing.Fenced;
import io.leasehold.fencing.TokenVerifier;
import io.leasehold.testkit.AgentFrameworkContract;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;

/** The testkit's agent-framework contract through a LangChain4j AI service with fenced tools. */
class LangChain4jAgentContractTest implements AgentFrameworkContract {
  interface Assistant {
    String chat(@UserMessage String message, InvocationParameters parameters);
  }

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
    @Tool("Records a text")
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
    LangChain4jToolFence fence = LangChain4jToolFence.builder(agentFence).build(); // a refusal ends the run
    ObjectMapper json = new ObjectMapper();
    return new AgentHarness() {
      @Override
      public void call(Fenced run, String text, Optional<String> idempotencyKey) throws Exception {
        String arguments =
            json.createObjectNode().put("text", text).put("idempotencyKey", idempotencyKey.orElse("")).toString();
        ScriptedChatModel model = new ScriptedChatModel().callTools("record", arguments).answer("done");
        AiServices.builder(Assistant.class)
            .chatModel(model)
            .tools(fence.wrapObjects(recorder))
            .toolExecutionErrorHandler(fence.errorHandler())
            .build()
            .chat("record " + text, LangChain4jToolFence.parameters(run));
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
