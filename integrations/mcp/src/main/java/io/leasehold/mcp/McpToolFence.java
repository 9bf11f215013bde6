package io.leasehold.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.leasehold.adapters.agent.AgentToolFence;
import io.leasehold.adapters.agent.AgentToolOutcome;
import io.leasehold.adapters.tool.FencedToolExecutor;
import io.leasehold.adapters.tool.ToolCallFailedException;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.Refusal;
import io.modelcontextprotocol.server.McpAsyncServerExchange;
import io.modelcontextprotocol.server.McpServerFeatures.AsyncToolSpecification;
import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.Tool;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiFunction;
import java.util.function.Supplier;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * Fences an MCP server's tools (CONTRACT C22): wraps the SDK's tool specifications so that every
 * {@code tools/call} presents a Leasehold token in {@code params._meta["io.leasehold/token"]}, and
 * runs only if the server's {@link FencedToolExecutor} verifies it, finds it in scope and admits
 * its fence against the durable high-water mark in its journal. A call takes the same path as an
 * in-process agent framework's: this fence reads {@code _meta}, the agent-tool core ({@link
 * AgentToolFence}) does the rest. Otherwise the caller gets an {@code isError} result carrying an
 * {@link McpRefusal}, and the tool body does not run.
 *
 * <pre>{@code
 * FencedToolExecutor executor = FencedToolExecutor.builder()
 *     .verifier(TokenVerifier.signedBy(keys))
 *     .journal(FileToolJournal.open(Path.of("/var/lib/files-mcp/tools.jsonl")))
 *     .scope(ToolScope.argumentUnderKey("path"))
 *     .build();
 * McpToolFence fence = McpToolFence.builder(executor).build();
 * McpServer.sync(transport).tools(fence.fence(writeFileSpec)).build();
 * }</pre>
 *
 * <p>The executor is what makes the fence hold: its verifier (signed tokens for a server anyone can
 * reach), its journal (a {@code FileToolJournal} or {@code JdbcToolJournal} keeps the highest fence
 * per key across restarts), and its {@code ToolScope} (C19). A call carrying {@value
 * McpFencing#IDEMPOTENCY_META_KEY} runs once per run and key: the same run's retry gets the first
 * result, a duplicate of a call still running is refused as {@code duplicate}, and a newer run
 * reusing the key runs its own call (the journal records the key as {@code <run id>:<key>}). A key
 * that is not a JSON string of 1 to 200 characters is refused as {@code malformed}. A result passes
 * through Jackson once on its way into the journal, and a replayed one once on its way back, so a
 * tool's result must survive a JSON round trip (text, images and structured content do).
 *
 * <p>Every failure of the fence's own machinery before the tool ran (the verifier, the journal, the
 * marks; any throwable) is refused as {@code unavailable}, with a message that names no table and
 * no SQL state; the detail is logged at WARNING. A failure after the tool ran leaves the tool's own
 * outcome as the answer (the call stays in doubt in the journal).
 *
 * <p>Thread-safe. The async form runs the journal's blocking I/O and the tool on Reactor's
 * bounded-elastic scheduler.
 */
public final class McpToolFence {
  private static final System.Logger LOG = System.getLogger(McpToolFence.class.getName());

  /**
   * Writes and reads the SDK's result types as its own Jackson binding does (mcp-json-jackson2).
   */
  private final ObjectMapper json = new ObjectMapper();

  private final AgentToolFence core;
  private final boolean acceptUnfencedCalls;

  private McpToolFence(Builder b) {
    this.core = AgentToolFence.builder(b.executor).build();
    this.acceptUnfencedCalls = b.acceptUnfencedCalls;
  }

  /**
   * Starts a builder.
   *
   * @param executor the guard every call goes through
   * @return the builder
   */
  public static Builder builder(FencedToolExecutor executor) {
    if (executor == null) {
      throw new IllegalArgumentException("executor must not be null");
    }
    return new Builder(executor);
  }

  /**
   * A tool specification whose calls are fenced. Its {@code tools/list} entry tells clients so: its
   * description ends with a note saying a token is needed and where it goes, and its {@code _meta}
   * holds {@value McpFencing#FENCE_META_KEY} ({@link #announced}).
   *
   * @param spec the tool as written
   * @return the fenced tool
   */
  public SyncToolSpecification fence(SyncToolSpecification spec) {
    Tool tool = announced(required(spec).tool());
    return SyncToolSpecification.builder()
        .tool(tool)
        .callHandler(fenced(tool, spec.callHandler()))
        .build();
  }

  private static <T> T required(T spec) {
    if (spec == null) {
      throw new IllegalArgumentException("spec must not be null");
    }
    return spec;
  }

  /**
   * The tool as a fenced server lists it: the description ends with {@link
   * McpFencing#toolNote(boolean)}, and {@code _meta} gains {@value McpFencing#FENCE_META_KEY},
   * {@code {"tokenRequired": ..., "tokenMetaKey": ..., "idempotencyMetaKey": ..., "refusalMetaKey":
   * ...}}, for clients that read it. Everything else is unchanged.
   *
   * @param tool the tool as written
   * @return the tool as listed
   */
  Tool announced(Tool tool) {
    String note = McpFencing.toolNote(!acceptUnfencedCalls);
    String description =
        tool.description() == null || tool.description().isBlank()
            ? note
            : tool.description() + "\n\n" + note;
    Map<String, Object> meta = new LinkedHashMap<>(tool.meta() == null ? Map.of() : tool.meta());
    meta.put(McpFencing.FENCE_META_KEY, McpFencing.fenceMeta(!acceptUnfencedCalls));
    return new Tool(
        tool.name(),
        tool.title(),
        description,
        tool.inputSchema(),
        tool.outputSchema(),
        tool.annotations(),
        meta,
        tool.icons());
  }

  /**
   * The async form of {@link #fence(SyncToolSpecification)}.
   *
   * @param spec the tool as written
   * @return the fenced tool
   */
  public AsyncToolSpecification fence(AsyncToolSpecification spec) {
    Tool tool = announced(required(spec).tool());
    BiFunction<McpAsyncServerExchange, CallToolRequest, CallToolResult> blocking =
        fenced(tool, (exchange, request) -> spec.callHandler().apply(exchange, request).block());
    // The fence's own steps block (journal, marks): they run off the caller's event loop.
    return AsyncToolSpecification.builder()
        .tool(tool)
        .callHandler(
            (exchange, request) ->
                Mono.fromCallable(() -> blocking.apply(exchange, request))
                    .subscribeOn(Schedulers.boundedElastic()))
        .build();
  }

  /** A tool's handler behind the fence: it runs only for a call {@link #call} admits. */
  private <E> BiFunction<E, CallToolRequest, CallToolResult> fenced(
      Tool tool, BiFunction<E, CallToolRequest, CallToolResult> handler) {
    return (exchange, request) ->
        call(tool.name(), request, () -> handler.apply(exchange, request));
  }

  /**
   * One call: read the token and the idempotency key from {@code _meta}, then the agent-tool core
   * (present, verify, scope, admit, run), as for every agent framework; or the refusal, with the
   * body not run. Every throwable of the fence's own machinery (verifier, journal, marks) before
   * the body ran is an {@code unavailable} refusal that names no table and no SQL state; the detail
   * goes to the log. Once the body ran, its own outcome is the answer.
   */
  private CallToolResult call(
      String toolName, CallToolRequest request, Supplier<CallToolResult> body) {
    Map<String, Object> meta = request.meta() == null ? Map.of() : request.meta();
    Object text = meta.get(McpFencing.TOKEN_META_KEY);
    if (text == null) {
      if (acceptUnfencedCalls) {
        LOG.log(
            System.Logger.Level.WARNING,
            "unfenced call of " + toolName + " accepted (migration switch on)");
        return body.get();
      }
      return refusal(Refusal.Reason.MISSING, null, null);
    }
    if (!(text instanceof String s)) {
      return refusal(Refusal.Reason.MALFORMED, null, McpRefusal.TOKEN_NOT_A_STRING_MESSAGE);
    }
    FencingToken token;
    try {
      token = FencingToken.parse(s);
    } catch (IllegalArgumentException e) {
      return refusal(Refusal.Reason.MALFORMED, null, e.getMessage());
    }
    Object key = meta.get(McpFencing.IDEMPOTENCY_META_KEY);
    if (key != null
        && !(key instanceof String k
            && !k.isEmpty()
            && k.length() <= McpRefusal.MAX_IDEMPOTENCY_KEY_LENGTH)) {
      return refusal(Refusal.Reason.MALFORMED, token, McpRefusal.BAD_IDEMPOTENCY_KEY_MESSAGE);
    }
    AtomicBoolean ran = new AtomicBoolean();
    AgentToolOutcome<CallToolResult> outcome;
    try {
      // One Jackson pass in: the arguments become the tree the journal records and scopes read.
      JsonNode arguments =
          json.valueToTree(request.arguments() == null ? Map.of() : request.arguments());
      outcome =
          core.call(
              token,
              toolName,
              arguments,
              Optional.ofNullable((String) key),
              invocation -> {
                ran.set(true);
                return body.get();
              },
              json::valueToTree);
    } catch (ToolCallFailedException e) {
      // The tool itself threw: let the SDK answer as it would without the fence.
      throw e.getCause() instanceof RuntimeException r ? r : e;
    } catch (RuntimeException | Error t) {
      if (ran.get()) {
        throw t; // the tool's own failure: the core has already made its outcome the answer
      }
      return unavailableOrRefused(toolName, token, t);
    }
    if (outcome instanceof AgentToolOutcome.Ran<CallToolResult> done) {
      return done.value();
    }
    if (outcome instanceof AgentToolOutcome.Replayed<CallToolResult> replayed) {
      // One Jackson pass out: the journaled tree back into the first call's result.
      return fromJson(replayed.journaled());
    }
    return McpRefusal.toResult(
        ((AgentToolOutcome.Refused<CallToolResult>) outcome).stop().refusal());
  }

  private static CallToolResult refusal(Refusal.Reason reason, FencingToken token, String detail) {
    return McpRefusal.toResult(McpRefusal.of(reason, token, OptionalLong.empty(), detail));
  }

  /**
   * The answer to a call whose fence threw before the body ran: a duplicate, or the fence's own
   * failure, which is logged and answered as {@code unavailable}.
   */
  private static CallToolResult unavailableOrRefused(
      String toolName, FencingToken token, Throwable t) {
    Refusal refusal = Refusal.of(t, token);
    if (refusal.reason() == Refusal.Reason.UNAVAILABLE) {
      LOG.log(
          System.Logger.Level.WARNING,
          "refused a call of "
              + toolName
              + " for "
              + token.unsigned()
              + " as unavailable: the fence could not check it",
          t);
    }
    return McpRefusal.toResult(refusal);
  }

  private CallToolResult fromJson(JsonNode node) {
    try {
      return json.treeToValue(node, CallToolResult.class);
    } catch (IOException e) {
      throw new UncheckedIOException("a journaled result cannot be read back as a tool result", e);
    }
  }

  /** Options of an {@link McpToolFence}. Not thread-safe. */
  public static final class Builder {
    private final FencedToolExecutor executor;
    private boolean acceptUnfencedCalls;

    private Builder(FencedToolExecutor executor) {
      this.executor = executor;
    }

    /**
     * The migration switch: whether a call without any token runs unfenced (logged at WARNING each
     * time) rather than being refused as {@link Refusal.Reason#MISSING}. Default false. A call with
     * a token is fenced either way.
     *
     * @param accept true to let token-less calls through
     * @return this builder
     */
    public Builder acceptUnfencedCalls(boolean accept) {
      this.acceptUnfencedCalls = accept;
      return this;
    }

    /**
     * Builds the fence.
     *
     * @return the fence
     */
    public McpToolFence build() {
      if (acceptUnfencedCalls) {
        LOG.log(
            System.Logger.Level.WARNING,
            "MCP tool fence accepts calls without a token: superseded runs of old clients are not refused");
      }
      return new McpToolFence(this);
    }
  }
}
