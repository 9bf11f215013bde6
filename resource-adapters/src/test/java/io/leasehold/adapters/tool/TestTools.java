package io.leasehold.adapters.tool;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Optional;
import java.util.function.Function;

/** Tools for tests, written as lambdas: a name, a body and, for an idempotent tool, its key. */
public final class TestTools {
  private TestTools() {}

  /** What a test tool does when it is called. */
  @FunctionalInterface
  public interface Body {
    /**
     * Performs the call.
     *
     * @param invocation the call
     * @return the result
     * @throws Exception anything the test wants to fly
     */
    JsonNode call(ToolInvocation invocation) throws Exception;
  }

  /**
   * A tool without an idempotency key.
   *
   * @param name its name
   * @param body what it does
   * @return the tool
   */
  public static FencedTool tool(String name, Body body) {
    return idempotent(name, arguments -> null, body);
  }

  /**
   * An idempotent tool.
   *
   * @param name its name
   * @param key the idempotency key of a call's arguments (null for none)
   * @param body what it does
   * @return the tool
   */
  public static FencedTool idempotent(String name, Function<JsonNode, String> key, Body body) {
    return new FencedTool() {
      @Override
      public String name() {
        return name;
      }

      @Override
      public JsonNode call(ToolInvocation invocation) throws Exception {
        return body.call(invocation);
      }

      @Override
      public Optional<String> idempotencyKey(JsonNode arguments) {
        return Optional.ofNullable(key.apply(arguments));
      }
    };
  }
}
