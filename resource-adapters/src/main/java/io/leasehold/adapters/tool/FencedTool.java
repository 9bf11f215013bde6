package io.leasehold.adapters.tool;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Optional;

/**
 * A side-effecting tool an agent calls: a name, JSON arguments in, a JSON result out.
 *
 * <p>A tool that calls a downstream service should forward {@link ToolInvocation#token()} (for
 * example in the {@link io.leasehold.fencing.TokenTransport#HTTP_HEADER} header) so that service
 * can refuse a stale run itself; otherwise the fence protects only the start of the call.
 *
 * <p>Implementations must be thread-safe if one run calls them in parallel.
 */
public interface FencedTool {
  /**
   * A tool from a name and a function, for tools that need neither the token nor an idempotency
   * key.
   *
   * <pre>{@code
   * FencedTool send = FencedTool.of("send_message", args -> chat.send(args.get("text").asText()));
   * }</pre>
   *
   * @param name the tool's name
   * @param function computes the result from the arguments; never returns null
   * @return the tool
   * @throws IllegalArgumentException if the name is blank or the function null
   */
  static FencedTool of(String name, java.util.function.Function<JsonNode, JsonNode> function) {
    if (function == null) {
      throw new IllegalArgumentException("function must not be null");
    }
    return withInvocation(name, invocation -> function.apply(invocation.arguments()));
  }

  /** What a tool made by {@link #withInvocation} does with a call. */
  @FunctionalInterface
  interface Body {
    /**
     * Performs the call.
     *
     * @param invocation the arguments, the admitted token and the call's identity
     * @return the result, never null
     * @throws Exception anything; the call is journaled as failed
     */
    JsonNode call(ToolInvocation invocation) throws Exception;
  }

  /**
   * A tool from a name and a body that sees the whole invocation: for a tool that forwards the
   * admitted token to the service it calls, so that the service can refuse a stale run itself.
   *
   * <pre>{@code
   * FencedTool post = FencedTool.withInvocation("post", call -> chat.post(call.token().toText(), call.arguments()));
   * }</pre>
   *
   * @param name the tool's name
   * @param body performs the call
   * @return the tool
   * @throws IllegalArgumentException if the name is blank or the body null
   */
  static FencedTool withInvocation(String name, Body body) {
    if (name == null || name.isBlank() || body == null) {
      throw new IllegalArgumentException("name must not be blank and body must not be null");
    }
    return new LambdaTool(name, body, arguments -> null);
  }

  /**
   * The tool's name, unique within an executor.
   *
   * @return the name
   */
  String name();

  /**
   * Performs the call.
   *
   * @param invocation the arguments, the admitted token and the call's identity
   * @return the result, never null (use a {@code NullNode})
   * @throws Exception anything; the call is journaled as failed and the executor throws {@link
   *     ToolCallFailedException}
   */
  JsonNode call(ToolInvocation invocation) throws Exception;

  /**
   * A key that identifies this call's effect, for tools whose effect may safely be requested again
   * with the same key (the downstream system deduplicates by it). When present, the executor passes
   * it to the tool, records it in the journal, and answers a repeated call with the same key from
   * the journal once an earlier call finished. Default: none.
   *
   * @param arguments the call's arguments
   * @return the key, or empty if the tool is not idempotent
   */
  default Optional<String> idempotencyKey(JsonNode arguments) {
    return Optional.empty();
  }
}
