package io.leasehold.adk.redteam;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.adk.models.BaseLlm;
import com.google.adk.models.BaseLlmConnection;
import com.google.adk.models.LlmRequest;
import com.google.adk.models.LlmResponse;
import com.google.genai.types.Content;
import com.google.genai.types.FunctionCall;
import com.google.genai.types.FunctionResponse;
import com.google.genai.types.Part;
import io.reactivex.rxjava3.core.Flowable;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;

/**
 * A model that answers from a script, with no network: each model call either asks for tool calls
 * (all at once, as a model asks for parallel calls) or ends the turn with text. It records the tool
 * responses it read, as the model would read them.
 */
final class RtLlm extends BaseLlm {
  private static final ObjectMapper JSON = new ObjectMapper();

  private record Step(Runnable before, Content reply) {}

  private final Deque<Step> script = new ArrayDeque<>();
  private final List<String> toolResultsSeen = new ArrayList<>();
  private int idSeq;

  RtLlm() {
    super("scripted");
  }

  /** Asks for tool calls: tool name, then its JSON arguments, repeated. */
  RtLlm callTools(String... nameThenArguments) {
    return callToolsAfter(() -> {}, nameThenArguments);
  }

  /** Runs {@code before} when the model is called, then asks for the tool calls. */
  RtLlm callToolsAfter(Runnable before, String... nameThenArguments) {
    List<Part> parts = new ArrayList<>();
    for (int i = 0; i < nameThenArguments.length; i += 2) {
      parts.add(
          Part.builder()
              .functionCall(
                  FunctionCall.builder()
                      .id("call-" + (++idSeq))
                      .name(nameThenArguments[i])
                      .args(arguments(nameThenArguments[i + 1]))
                      .build())
              .build());
    }
    script.add(new Step(before, Content.builder().role("model").parts(parts).build()));
    return this;
  }

  RtLlm answer(String text) {
    script.add(new Step(() -> {}, Content.fromParts(Part.fromText(text))));
    return this;
  }

  private static Map<String, Object> arguments(String json) {
    try {
      return JSON.readValue(json, new TypeReference<Map<String, Object>>() {});
    } catch (java.io.IOException e) {
      throw new IllegalArgumentException("scripted arguments are not a JSON object: " + json, e);
    }
  }

  @Override
  public synchronized Flowable<LlmResponse> generateContent(LlmRequest request, boolean stream) {
    List<Content> contents = request.contents();
    if (!contents.isEmpty()) {
      for (Part p : contents.get(contents.size() - 1).parts().orElse(List.of())) {
        p.functionResponse()
            .flatMap(FunctionResponse::response)
            .ifPresent(r -> toolResultsSeen.add(asRead(r)));
      }
    }
    Step next = script.poll();
    if (next == null) {
      return Flowable.error(new IllegalStateException("the script has no more turns"));
    }
    next.before().run();
    Content reply = next.reply().toBuilder().role("model").build();
    return Flowable.just(LlmResponse.builder().content(reply).build());
  }

  /** A response as the scenarios compare it: its error or its result as text, or else its JSON. */
  private static String asRead(Map<String, Object> response) {
    Object error = response.get("error");
    if (error != null) {
      return error.toString();
    }
    Object result = response.get("result");
    if (result != null && response.size() == 1) {
      return result.toString();
    }
    try {
      return JSON.writeValueAsString(response);
    } catch (java.io.IOException e) {
      return response.toString();
    }
  }

  @Override
  public BaseLlmConnection connect(LlmRequest request) {
    throw new UnsupportedOperationException("the scripted model has no live connection");
  }

  synchronized List<String> toolResultsSeen() {
    return List.copyOf(toolResultsSeen);
  }
}
