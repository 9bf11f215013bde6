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
 * It is a LangChain4j {@link ChatModel}; {@link ScriptedAdkModel} plays the same script to ADK.
 */
final class ScriptedAgentModel implements ChatModel {
  /** One turn: a tool call ({@code tool} and its JSON arguments) or, with no tool, the answer. */
  record Step(Runnable before, String tool, String argumentsJson, String answer) {}

  private final Deque<Step> steps = new ArrayDeque<>();
  private int ids;

  ScriptedAgentModel call(String tool, String argumentsJson) {
    return callAfter(() -> {}, tool, argumentsJson);
  }

  ScriptedAgentModel callAfter(Runnable before, String tool, String argumentsJson) {
    steps.add(new Step(before, tool, argumentsJson, null));
    return this;
  }

  ScriptedAgentModel answer(String text) {
    steps.add(new Step(() -> {}, null, null, text));
    return this;
  }

  /** The next turn, once its hook has run. */
  synchronized Step next() {
    Step next = steps.poll();
    if (next == null) {
      throw new IllegalStateException("the script has no more steps");
    }
    next.before().run();
    return next;
  }

  /** A new id for a tool call of the script. */
  synchronized String nextCallId() {
    return "call-" + (++ids);
  }

  @Override
  public ChatResponse doChat(ChatRequest request) {
    Step next = next();
    AiMessage reply =
        next.tool() == null
            ? AiMessage.from(next.answer())
            : AiMessage.from(
                ToolExecutionRequest.builder()
                    .id(nextCallId())
                    .name(next.tool())
                    .arguments(next.argumentsJson())
                    .build());
    return ChatResponse.builder().aiMessage(reply).build();
  }
}
