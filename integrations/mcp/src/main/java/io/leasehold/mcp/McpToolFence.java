package io.leasehold.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.leasehold.adapters.tool.FencedTool;
import io.leasehold.adapters.tool.FencedToolExecutor;
import io.leasehold.adapters.tool.ToolCallFailedException;
import io.leasehold.adapters.tool.ToolInvocation;
import io.leasehold.fencing.FencingToken;
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
import java.util.function.Supplier;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * Fences an MCP server's tools (CONTRACT C22): wraps the SDK's tool specifications so that every
 * {@code tools/call} presents a Leasehold token in {@code params._meta["io.leasehold/token"]}, and
 * runs only if the server's {@link FencedToolExecutor} verifies it, finds it in scope and admits
 * its fence against the durable high-water mark in its journal. Otherwise the caller gets an
 * {@code isError} result carrying an {@link McpRefusal}, and the tool body does not run.
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
 * <p>The executor is what makes the fence hold: its verifier (signed tokens for a server anyone
 * can reach), its journal (a {@code FileToolJournal} or {@code JdbcToolJournal} keeps the highest
 * fence per key across restarts), and its {@code ToolScope} (C19). A call carrying {@value
 * McpFencing#IDEMPOTENCY_META_KEY} runs once per run and key: the same run's retry gets the first
 * result, a duplicate of a call still running is refused as {@code duplicate}, and a newer run
 * reusing the key runs its own call (the journal records the key as {@code <run id>:<key>}). A
 * key that is not a JSON string of 1 to 200 characters is refused as {@code malformed}. Replayed
 * results are read back from the journal as JSON, so a tool's result must survive a JSON round
 * trip (text, images and structured content do).
 *
 * <p>Every failure of the fence's own machinery before the tool ran (the verifier, the journal,
 * the marks; any throwable) is refused as {@code unavailable}, with a message that names no table
 * and no SQL state; the detail is logged at WARNING. A failure after the tool ran leaves the
 * tool's own outcome as the answer (the call stays in doubt in the journal).
 *
 * <p>Thread-safe. The async form runs the journal's blocking I/O and the tool on Reactor's
 * bounded-elastic scheduler.
 */
public final class McpToolFence {
  private static final System.Logger LOG = System.getLogger(McpToolFence.class.getName());

  private final FencedToolExecutor executor;
  private final boolean acceptUnfencedCalls;
  private final io.modelcontextprotocol.json.McpJsonMapper mcpJson;
  private final ObjectMapper json = new ObjectMapper();

  private McpToolFence(Builder b) {
    this.executor = b.executor;
    this.acceptUnfencedCalls = b.acceptUnfencedCalls;
    this.mcpJson = new io.modelcontextprotocol.json.jackson2.JacksonMcpJsonMapper(json);
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
   * A tool specification whose calls are fenced. Its {@code tools/list} entry tells clients so:
   * its description ends with a note saying a token is needed and where it goes, and its {@code
   * _meta} holds {@value McpFencing#FENCE_META_KEY} ({@link #announced}).
   *
   * @param spec the tool as written
   * @return the fenced tool
   */
  public SyncToolSpecification fence(SyncToolSpecification spec) {
    if (spec == null) {
      throw new IllegalArgumentException("spec must not be null");
    }
    return SyncToolSpecification.builder()
        .tool(announced(spec.tool()))
        .callHandler((exchange, request) -> call(spec.tool().name(), request,
            () -> spec.callHandler().apply(exchange, request)))
        .build();
  }

  /**
   * The tool as a fenced server lists it: the description ends with {@link
   * McpFencing#toolNote(boolean)}, and {@code _meta} gains {@value McpFencing#FENCE_META_KEY},
   * {@code {"tokenRequired": ..., "tokenMetaKey": ..., "idempotencyMetaKey": ...,
   * "refusalMetaKey": ...}}, for clients that read it. Everything else is unchanged.
   *
   * @param tool the tool as written
   * @return the tool as listed
   */
  Tool announced(Tool tool) {
    String note = McpFencing.toolNote(!acceptUnfencedCalls);
    String description = tool.description() == null || tool.description().isBlank()
        ? note : tool.description() + "\n\n" + note;
    Map<String, Object> meta = new LinkedHashMap<>(tool.meta() == null ? Map.of() : tool.meta());
    meta.put(McpFencing.FENCE_META_KEY, McpFencing.fenceMeta(!acceptUnfencedCalls));
    return new Tool(tool.name(), tool.title(), description, tool.inputSchema(), tool.outputSchema(),
        tool.annotations(), meta, tool.icons());
  }

  /**
   * The async form of {@link #fence(SyncToolSpecification)}.
   *
   * @param spec the tool as written
   * @return the fenced tool
   */
  public AsyncToolSpecification fence(AsyncToolSpecification spec) {
    if (spec == null) {
      throw new IllegalArgumentException("spec must not be null");
    }
    return AsyncToolSpecification.builder()
        .tool(announced(spec.tool()))
        .callHandler((exchange, request) ->
            Mono.fromCallable(() -> call(spec.tool().name(), request,
                    () -> spec.callHandler().apply(exchange, request).block()))
                .subscribeOn(Schedulers.boundedElastic()))
        .build();
  }

  /**
   * One call: read, verify, scope, admit, run; or the refusal, with the body not run. Every
   * throwable of the fence's own machinery (verifier, journal, marks) before the body ran is an
   * {@code unavailable} refusal that names no table and no SQL state; the detail goes to the log.
   */
  private CallToolResult call(String toolName, CallToolRequest request, Supplier<CallToolResult> body) {
    Map<String, Object> meta = request.meta() == null ? Map.of() : request.meta();
    Object text = meta.get(McpFencing.TOKEN_META_KEY);
    if (text == null) {
      if (acceptUnfencedCalls) {
        LOG.log(System.Logger.Level.WARNING, "unfenced call of " + toolName + " accepted (migration switch on)");
        return body.get();
      }
      return McpRefusal.of(McpRefusal.Reason.MISSING, null, OptionalLong.empty(), null).toResult();
    }
    if (!(text instanceof String s)) {
      return McpRefusal.of(McpRefusal.Reason.MALFORMED, null, OptionalLong.empty(),
          McpRefusal.TOKEN_NOT_A_STRING_MESSAGE).toResult();
    }
    FencingToken token;
    try {
      token = FencingToken.parse(s);
    } catch (IllegalArgumentException e) {
      return McpRefusal.of(McpRefusal.Reason.MALFORMED, null, OptionalLong.empty(), e.getMessage()).toResult();
    }
    Object key = meta.get(McpFencing.IDEMPOTENCY_META_KEY);
    if (key != null && !(key instanceof String k && !k.isEmpty() && k.length() <= McpRefusal.MAX_IDEMPOTENCY_KEY_LENGTH)) {
      return McpRefusal.of(McpRefusal.Reason.MALFORMED, token, OptionalLong.empty(),
          McpRefusal.BAD_IDEMPOTENCY_KEY_MESSAGE).toResult();
    }
    // Idempotency is per run: the journal's replay is keyed by the run's id with the client's key,
    // so a newer run reusing a key runs its own call instead of getting an older run's result.
    Optional<String> idempotencyKey = Optional.ofNullable((String) key).map(k -> token.runId() + ":" + k);
    BodyRun run = new BodyRun(toolName, body, idempotencyKey);
    try {
      JsonNode arguments = json.valueToTree(request.arguments() == null ? Map.of() : request.arguments());
      io.leasehold.adapters.tool.ToolResult done = executor.call(token, run, arguments);
      return done.replayed() || run.result == null ? fromJson(done.value()) : run.result;
    } catch (ToolCallFailedException e) {
      // The tool itself threw: let the SDK answer as it would without the fence.
      throw e.getCause() instanceof RuntimeException r ? r : e;
    } catch (Throwable t) {
      return afterFailure(toolName, token, run, t);
    }
  }

  /**
   * The answer to a call whose fence threw. Before the body ran: the refusal the throwable stands
   * for. After: the body's own outcome, since the tool did run (the journal could not record it,
   * and lists the call in doubt).
   */
  private static CallToolResult afterFailure(String toolName, FencingToken token, BodyRun run, Throwable t) {
    if (run.ran) {
      if (t != run.thrown) {
        LOG.log(System.Logger.Level.WARNING, "the tool " + toolName + " ran for " + token.unsigned()
            + " but its outcome could not be journaled; the call stays in doubt", t);
      }
      if (run.thrown instanceof RuntimeException r) {
        throw r;
      }
      if (run.thrown instanceof Error e) {
        throw e;
      }
      if (run.result == null) {
        // Never a refusal: the tool did run. The SDK answers as it would without the fence.
        throw new IllegalStateException("the tool " + toolName + " returned no result", t);
      }
      return run.result;
    }
    McpRefusal refusal = McpRefusal.of(t, token);
    if (refusal.reason() == McpRefusal.Reason.UNAVAILABLE) {
      LOG.log(System.Logger.Level.WARNING, "refused a call of " + toolName + " for " + token.unsigned()
          + " as unavailable: the fence could not check it", t);
    }
    return refusal.toResult();
  }

  /** The tool as the executor calls it, remembering whether its body ran and how it ended. */
  private final class BodyRun implements FencedTool {
    private final String name;
    private final Supplier<CallToolResult> body;
    private final Optional<String> idempotencyKey;
    private volatile boolean ran;
    private volatile CallToolResult result;
    private volatile Throwable thrown;

    BodyRun(String name, Supplier<CallToolResult> body, Optional<String> idempotencyKey) {
      this.name = name;
      this.body = body;
      this.idempotencyKey = idempotencyKey;
    }

    @Override
    public String name() {
      return name;
    }

    @Override
    public JsonNode call(ToolInvocation invocation) {
      ran = true;
      try {
        result = body.get();
      } catch (RuntimeException | Error e) {
        thrown = e;
        throw e;
      }
      return toJson(result);
    }

    @Override
    public Optional<String> idempotencyKey(JsonNode args) {
      return idempotencyKey;
    }
  }

  private JsonNode toJson(CallToolResult result) {
    try {
      return json.readTree(mcpJson.writeValueAsString(result));
    } catch (IOException e) {
      throw new UncheckedIOException("the tool's result cannot be written as JSON", e);
    }
  }

  private CallToolResult fromJson(JsonNode node) {
    try {
      return mcpJson.readValue(node.toString(), CallToolResult.class);
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
     * The migration switch: whether a call without any token runs unfenced (logged at WARNING
     * each time) rather than being refused as {@link McpRefusal.Reason#MISSING}. Default false.
     * A call with a token is fenced either way.
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
        LOG.log(System.Logger.Level.WARNING,
            "MCP tool fence accepts calls without a token: superseded runs of old clients are not refused");
      }
      return new McpToolFence(this);
    }
  }
}
