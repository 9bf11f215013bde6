package io.leasehold.springai;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.ToolResponseMessage;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.model.Generation;
import org.springframework.ai.chat.prompt.ChatOptions;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.model.tool.ToolCallingChatOptions;

/** A model that answers from a script: each turn either asks for tool calls or ends with text. */
final class ScriptedChatModel implements ChatModel {
  private final Deque<AssistantMessage> script = new ArrayDeque<>();
  private final List<String> toolResultsSeen = new ArrayList<>();
  private int idSeq;

  ScriptedChatModel callTools(String... nameThenArguments) {
    List<AssistantMessage.ToolCall> calls = new ArrayList<>();
    for (int i = 0; i < nameThenArguments.length; i += 2) {
      calls.add(
          new AssistantMessage.ToolCall(
              "call-" + (++idSeq), "function", nameThenArguments[i], nameThenArguments[i + 1]));
    }
    script.add(AssistantMessage.builder().content("").toolCalls(calls).build());
    return this;
  }

  ScriptedChatModel answer(String text) {
    script.add(new AssistantMessage(text));
    return this;
  }

  @Override
  public synchronized ChatResponse call(Prompt prompt) {
    List<Message> messages = prompt.getInstructions();
    if (!messages.isEmpty() && messages.get(messages.size() - 1) instanceof ToolResponseMessage r) {
      r.getResponses().forEach(x -> toolResultsSeen.add(x.responseData()));
    }
    AssistantMessage next = script.poll();
    if (next == null) {
      throw new IllegalStateException("the script has no more turns");
    }
    return new ChatResponse(List.of(new Generation(next)));
  }

  // Without tool-calling options here, ChatClient silently drops the tools.
  @Override
  public ChatOptions getOptions() {
    return ToolCallingChatOptions.builder().build();
  }

  synchronized List<String> toolResultsSeen() {
    return List.copyOf(toolResultsSeen);
  }
}
