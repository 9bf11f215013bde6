package io.leasehold.adapters.tool;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Optional;
import java.util.function.Function;

/**
 * A tool made of its parts ({@link FencedTool#of}, {@link FencedTool#withInvocation}).
 *
 * @param name the tool's name
 * @param body performs a call
 * @param key a call's idempotency key from its arguments, null for none
 */
record LambdaTool(String name, FencedTool.Body body, Function<JsonNode, String> key)
    implements FencedTool {
  @Override
  public JsonNode call(ToolInvocation invocation) throws Exception {
    return body.call(invocation);
  }

  @Override
  public Optional<String> idempotencyKey(JsonNode arguments) {
    return Optional.ofNullable(key.apply(arguments));
  }

  @Override
  public String toString() {
    return "FencedTool[" + name + "]";
  }
}
