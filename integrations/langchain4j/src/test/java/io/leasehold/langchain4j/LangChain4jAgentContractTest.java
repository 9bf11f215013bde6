package io.leasehold.langchain4j;

import dev.langchain4j.agent.tool.Tool;
import dev.langchain4j.invocation.InvocationParameters;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.UserMessage;
import io.leasehold.adapters.agenttest.RecordingAgentHarness;
import io.leasehold.fencing.Fenced;
import io.leasehold.testkit.AgentFrameworkContract;
import java.util.Optional;

/** The testkit's agent-framework contract through a LangChain4j AI service with fenced tools. */
class LangChain4jAgentContractTest implements AgentFrameworkContract {
  interface Assistant {
    String chat(@UserMessage String message, InvocationParameters parameters);
  }

  /** The harness, whose one tool LangChain4j finds by its annotation. */
  public static class Harness extends RecordingAgentHarness {
    private final LangChain4jToolFence fence =
        LangChain4jToolFence.builder(agentFence).build(); // a refusal ends the run

    @Override
    public void call(Fenced run, String text, Optional<String> idempotencyKey) {
      AiServices.builder(Assistant.class)
          .chatModel(
              new ScriptedChatModel()
                  .callTools("record", recordArguments(text, idempotencyKey))
                  .answer("done"))
          .tools(fence.wrapObjects(this))
          .toolExecutionErrorHandler(fence.errorHandler())
          .build()
          .chat("record " + text, LangChain4jToolFence.parameters(run));
    }

    /**
     * Records a text.
     *
     * @param text the text
     * @param idempotencyKey the call's idempotency key, or empty
     * @return what happened
     */
    @Tool("Records a text")
    public String record(String text, String idempotencyKey) {
      return record(text);
    }
  }

  @Override
  public AgentHarness agentHarness() {
    return new Harness();
  }
}
