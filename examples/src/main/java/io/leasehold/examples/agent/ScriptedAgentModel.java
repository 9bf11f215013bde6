package io.leasehold.examples.agent;

import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * A deterministic stand-in for a language model: each turn returns the next scripted step (one tool
 * call, or the final answer), so the demo runs with no network and no API key. A step may first run
 * a hook, which is how the demo lets the browser take over while the desktop's model is "thinking".
 */
final class ScriptedAgentModel implements ChatModel {
  private record Step(Runnable before, AiMessage reply) {}

  private final Deque<Step> steps = new ArrayDeque<>();
  private int ids;

  ScriptedAgentModel call(String tool, String argumentsJson) {
    return callAfter(() -> {}, tool, argumentsJson);
  }

  ScriptedAgentModel callAfter(Runnable before, String tool, String argumentsJson) {
    ToolExecutionRequest request =
        ToolExecutionRequest.builder()
            .id("call-" + (++ids))
            .name(tool)
            .arguments(argumentsJson)
            .build();
    steps.add(new Step(before, AiMessage.from(request)));
    return this;
  }

  ScriptedAgentModel answer(String text) {
    steps.add(new Step(() -> {}, AiMessage.from(text)));
    return this;
  }

  @Override
  public ChatResponse doChat(ChatRequest request) {
    Step next = steps.poll();
    if (next == null) {
      throw new IllegalStateException("the script has no more steps");
    }
    next.before().run();
    return ChatResponse.builder().aiMessage(next.reply()).build();
  }
}
