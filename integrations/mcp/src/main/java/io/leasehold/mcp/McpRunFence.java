package io.leasehold.mcp;

import io.leasehold.adapters.agent.RunStop;
import io.leasehold.adapters.agent.RunStoppedException;
import io.leasehold.fencing.Fenced;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseLostException;
import io.leasehold.fencing.Refusal;
import io.modelcontextprotocol.client.McpAsyncClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicReference;
import reactor.core.publisher.Mono;

/**
 * One agent run's side of a fenced MCP server (CONTRACT C22): attaches the run's current token to
 * every {@code tools/call} it sends, through the SDK's sync or async client, and stops the run the
 * moment it must stop.
 *
 * <pre>{@code
 * McpRunFence run = McpRunFence.of(lease);          // one per run
 * CallToolResult r = run.callTool(client, CallToolRequest.builder("write_file").arguments(args).build());
 * // RunStoppedException once the lease is lost or a newer run superseded this one
 * }</pre>
 *
 * <ul>
 *   <li>The token is read from the lease at each call, so a renewed lease's fresh token travels
 *       (C20), and a lease known lost refuses locally without reaching the server (C6).
 *   <li>A server's refusal whose action is {@link Refusal.Action#STOP_RUN} ({@code superseded},
 *       {@code lease_lost}, {@code expired}, {@code forged}, {@code malformed} or {@code missing})
 *       stops the run: that call and every later one, parallel calls included, throw {@link
 *       RunStoppedException} with a {@link RunStop} carrying the server's {@link Refusal} as it
 *       came, as the in-process agent fences do, so the agent loop ends the run. An {@code
 *       out_of_scope}, {@code duplicate} or {@code unavailable} refusal is returned as the error
 *       result it is: the run may go on.
 * </ul>
 *
 * <p>Thread-safe.
 */
public final class McpRunFence {
  private final Fenced run;
  private final AtomicReference<RunStop> stop = new AtomicReference<>();

  private McpRunFence(Fenced run) {
    this.run = run;
  }

  /**
   * The fence of one run.
   *
   * @param run the run's lease (or, for tests and tools, a token)
   * @return the fence
   */
  public static McpRunFence of(Fenced run) {
    if (run == null) {
      throw new IllegalArgumentException("run must not be null");
    }
    return new McpRunFence(run);
  }

  /**
   * Why this run was stopped, once it was.
   *
   * @return the stop, or empty while the run may go on
   */
  public Optional<RunStop> stopped() {
    return Optional.ofNullable(stop.get());
  }

  /**
   * Calls a tool through a sync client, with the run's token attached.
   *
   * @param client the SDK's client, initialized
   * @param request the call; any {@code _meta} it has is kept
   * @return the tool's result, or an error result for a refusal that does not stop the run
   * @throws RunStoppedException if the run is stopped, before or by this call; a call refused
   *     locally never reached the server
   * @throws IllegalArgumentException if the request's idempotency key is not a string of 1 to 200
   *     characters; nothing was sent
   */
  public CallToolResult callTool(McpSyncClient client, CallToolRequest request) {
    if (client == null) {
      throw new IllegalArgumentException("client must not be null");
    }
    Attached a = attach(request);
    return checked(a, client.callTool(a.request()));
  }

  /**
   * Calls a tool through an async client, with the run's token attached. The returned {@code Mono}
   * fails with {@link RunStoppedException} as {@link #callTool(McpSyncClient, CallToolRequest)}
   * throws it.
   *
   * @param client the SDK's client, initialized
   * @param request the call
   * @return the result
   */
  public Mono<CallToolResult> callTool(McpAsyncClient client, CallToolRequest request) {
    if (client == null) {
      throw new IllegalArgumentException("client must not be null");
    }
    return Mono.defer(
        () -> {
          Attached a = attach(request);
          return client.callTool(a.request()).map(r -> checked(a, r));
        });
  }

  private record Attached(CallToolRequest request, FencingToken token) {}

  private Attached attach(CallToolRequest request) {
    if (request == null) {
      throw new IllegalArgumentException("request must not be null");
    }
    Object key =
        request.meta() == null ? null : request.meta().get(McpFencing.IDEMPOTENCY_META_KEY);
    if (key != null
        && !(key instanceof String k
            && !k.isEmpty()
            && k.length() <= McpRefusal.MAX_IDEMPOTENCY_KEY_LENGTH)) {
      // Refused here, before anything is sent: a fenced server would refuse it as malformed.
      throw new IllegalArgumentException(
          McpRefusal.BAD_IDEMPOTENCY_KEY_MESSAGE + "; nothing was sent");
    }
    RunStop already = stop.get();
    if (already != null) {
      throw new RunStoppedException(already);
    }
    FencingToken token;
    try {
      token = Fenced.present(run);
    } catch (LeaseLostException e) {
      throw stopped(
          new RunStop(
              e.token(),
              request.name(),
              Refusal.of(
                  Refusal.Reason.LEASE_LOST,
                  e.token(),
                  OptionalLong.empty(),
                  "refused locally, before the call was sent: " + e.getMessage())));
    }
    Map<String, Object> meta = new HashMap<>(request.meta() == null ? Map.of() : request.meta());
    meta.put(McpFencing.TOKEN_META_KEY, token.toText());
    CallToolRequest fenced =
        CallToolRequest.builder(request.name())
            .arguments(request.arguments() == null ? Map.of() : request.arguments())
            .meta(meta)
            .build();
    return new Attached(fenced, token);
  }

  private CallToolResult checked(Attached a, CallToolResult result) {
    Optional<Refusal> refusal = McpRefusal.from(result);
    if (refusal.isEmpty() || refusal.get().action() != Refusal.Action.STOP_RUN) {
      return result;
    }
    throw stopped(new RunStop(a.token(), a.request().name(), refusal.get()));
  }

  /** Records the first stop (a parallel call's may have won) and the exception to throw. */
  private RunStoppedException stopped(RunStop s) {
    stop.compareAndSet(null, s);
    return new RunStoppedException(stop.get());
  }
}
