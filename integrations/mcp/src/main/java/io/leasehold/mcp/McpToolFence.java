package io.leasehold.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.leasehold.adapters.tool.FencedTool;
import io.leasehold.adapters.tool.FencedToolExecutor;
import io.leasehold.adapters.tool.ToolCallFailedException;
import io.leasehold.adapters.tool.ToolInvocation;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.TokenVerificationException;
import io.modelcontextprotocol.server.McpServerFeatures.AsyncToolSpecification;
import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.Optional;
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
 * McpFencing#IDEMPOTENCY_META_KEY} runs once per run and key; a retry gets the first result.
 * Replayed results are read back from the journal as JSON, so a tool's result must survive a JSON
 * round trip (text, images and structured content do).
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
   * A tool specification whose calls are fenced; the tool and its description are unchanged.
   *
   * @param spec the tool as written
   * @return the fenced tool
   */
  public SyncToolSpecification fence(SyncToolSpecification spec) {
    if (spec == null) {
      throw new IllegalArgumentException("spec must not be null");
    }
    return SyncToolSpecification.builder()
        .tool(spec.tool())
        .callHandler((exchange, request) -> call(spec.tool().name(), request,
            () -> spec.callHandler().apply(exchange, request)))
        .build();
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
        .tool(spec.tool())
        .callHandler((exchange, request) ->
            Mono.fromCallable(() -> call(spec.tool().name(), request,
                    () -> spec.callHandler().apply(exchange, request).block()))
                .subscribeOn(Schedulers.boundedElastic()))
        .build();
  }

  /** One call: read, verify, scope, admit, run; or the refusal, with the body not run. */
  private CallToolResult call(String toolName, CallToolRequest request, java.util.function.Supplier<CallToolResult> body) {
    Map<String, Object> meta = request.meta() == null ? Map.of() : request.meta();
    Object text = meta.get(McpFencing.TOKEN_META_KEY);
    if (text == null) {
      if (acceptUnfencedCalls) {
        LOG.log(System.Logger.Level.WARNING, "unfenced call of " + toolName + " accepted (migration switch on)");
        return body.get();
      }
      return refuse(new TokenVerificationException(TokenVerificationException.Reason.MISSING,
          "the call carries no token in _meta[\"" + McpFencing.TOKEN_META_KEY + "\"]: call through a"
              + " fenced client (McpRunFence) that attaches the run's lease token"), null);
    }
    FencingToken token;
    try {
      if (!(text instanceof String s)) {
        throw new IllegalArgumentException("the token must be a JSON string, was " + text.getClass().getSimpleName());
      }
      token = FencingToken.parse(s);
    } catch (IllegalArgumentException e) {
      return refuse(new TokenVerificationException(TokenVerificationException.Reason.MALFORMED, e.getMessage()), null);
    }
    JsonNode arguments = json.valueToTree(request.arguments() == null ? Map.of() : request.arguments());
    Optional<String> idempotencyKey =
        meta.get(McpFencing.IDEMPOTENCY_META_KEY) instanceof String k && !k.isBlank() ? Optional.of(k) : Optional.empty();
    FencedTool tool = new FencedTool() {
      @Override
      public String name() {
        return toolName;
      }

      @Override
      public JsonNode call(ToolInvocation invocation) {
        return toJson(body.get());
      }

      @Override
      public Optional<String> idempotencyKey(JsonNode args) {
        return idempotencyKey;
      }
    };
    try {
      return fromJson(executor.call(token, tool, arguments).value());
    } catch (ToolCallFailedException e) {
      // The tool itself threw: let the SDK answer as it would without the fence.
      throw e.getCause() instanceof RuntimeException r ? r : e;
    } catch (RuntimeException e) {
      return refuse(e, token);
    }
  }

  private static CallToolResult refuse(RuntimeException e, FencingToken token) {
    return McpRefusal.of(e, token).map(McpRefusal::toResult).orElseThrow(() -> e);
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
