package io.leasehold.langchain4j;

import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

/** A model that answers from a script: each turn either asks for tool calls or ends with text. */
final class ScriptedChatModel implements ChatModel {
  private final Deque<AiMessage> script = new ArrayDeque<>();
  private final List<String> toolResultsSeen = new ArrayList<>();
  private int idSeq;

  ScriptedChatModel callTools(String... nameThenArguments) {
    List<ToolExecutionRequest> calls = new ArrayList<>();
    for (int i = 0; i < nameThenArguments.length; i += 2) {
      calls.add(
          ToolExecutionRequest.builder()
              .id("call-" + (++idSeq))
              .name(nameThenArguments[i])
              .arguments(nameThenArguments[i + 1])
              .build());
    }
    script.add(AiMessage.from(calls));
    return this;
  }

  ScriptedChatModel answer(String text) {
    script.add(AiMessage.from(text));
    return this;
  }

  @Override
  public synchronized ChatResponse doChat(ChatRequest request) {
    List<ChatMessage> messages = request.messages();
    for (int i = messages.size() - 1;
        i >= 0 && messages.get(i) instanceof ToolExecutionResultMessage r;
        i--) {
      toolResultsSeen.add(0, r.text());
    }
    AiMessage next = script.poll();
    if (next == null) {
      throw new IllegalStateException("the script has no more turns");
    }
    return ChatResponse.builder().aiMessage(next).build();
  }

  synchronized List<String> toolResultsSeen() {
    return List.copyOf(toolResultsSeen);
  }
}
