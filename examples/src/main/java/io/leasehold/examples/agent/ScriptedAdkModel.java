package io.leasehold.examples.agent;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.adk.models.BaseLlm;
import com.google.adk.models.BaseLlmConnection;
import com.google.adk.models.LlmRequest;
import com.google.adk.models.LlmResponse;
import com.google.genai.types.Content;
import com.google.genai.types.FunctionCall;
import com.google.genai.types.Part;
import io.reactivex.rxjava3.core.Flowable;
import java.util.Map;

/**
 * The demo's scripted model as an ADK {@link BaseLlm}: it plays a {@link ScriptedAgentModel}'s
 * script, one step per model call, with no network.
 */
final class ScriptedAdkModel extends BaseLlm {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final ScriptedAgentModel script;

  ScriptedAdkModel(ScriptedAgentModel script) {
    super("scripted-trip-planner");
    this.script = script;
  }

  @Override
  public Flowable<LlmResponse> generateContent(LlmRequest request, boolean stream) {
    ScriptedAgentModel.Step next = script.next();
    Part part =
        next.tool() == null
            ? Part.fromText(next.answer())
            : Part.builder()
                .functionCall(
                    FunctionCall.builder()
                        .id(script.nextCallId())
                        .name(next.tool())
                        .args(arguments(next.argumentsJson()))
                        .build())
                .build();
    return Flowable.just(
        LlmResponse.builder().content(Content.builder().role("model").parts(part).build()).build());
  }

  private static Map<String, Object> arguments(String json) {
    try {
      return JSON.readValue(json, new TypeReference<Map<String, Object>>() {});
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("a scripted call's arguments are not a JSON object", e);
    }
  }

  @Override
  public BaseLlmConnection connect(LlmRequest request) {
    throw new UnsupportedOperationException("the scripted model has no live connection");
  }
}
