package io.leasehold.adapters.agent;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.TextNode;
import io.leasehold.adapters.tool.FencedTool;
import io.leasehold.adapters.tool.FencedToolExecutor;
import io.leasehold.adapters.tool.ToolCallFailedException;
import io.leasehold.adapters.tool.ToolInvocation;
import io.leasehold.adapters.tool.ToolResult;
import io.leasehold.fencing.Fenced;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.LeaseLostException;
import io.leasehold.fencing.Refusal;
import io.leasehold.fencing.StaleFenceException;
import io.leasehold.fencing.TokenVerificationException;
import io.leasehold.fencing.internal.Arguments;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Function;

/**
 * The agent-tool core: admits an agent's tool calls through a {@link FencedToolExecutor}. A call
 * runs only if its run is still the newest of its session, every call is journaled, and a refused
 * call becomes a {@link RunStop} (its {@link io.leasehold.fencing.Refusal} in the shared
 * vocabulary) the model can read. The LangChain4j and Spring AI fences and the MCP server's fence
 * all call it, so every agent tool call takes the same path: framework adapter, this core, the
 * executor; a plain function-calling loop calls it directly.
 *
 * <pre>{@code
 * AgentToolFence fence = AgentToolFence.builder(executor).listener(stop -> run.cancel()).build();
 * AgentToolOutcome<String> outcome =
 *     fence.call(lease, "send_message", argumentsJson, call -> chat.send(argumentsJson), text -> text);
 * }</pre>
 *
 * <p>Once a call of a run has been refused as superseded or lost, later calls of the same run are
 * refused here, without touching the journal (CONTRACT C6): a turn whose lease was lost part-way
 * runs none of its remaining calls, parallel ones included. This memory is bounded and only a
 * shortcut; the journal refuses a stale fence on its own.
 *
 * <p>Thread-safe: a framework may run one turn's calls in parallel.
 */
public final class AgentToolFence {
  private static final System.Logger LOG = System.getLogger(AgentToolFence.class.getName());

  /**
   * Tokens remembered as stopped; beyond this the oldest are forgotten (the journal still refuses
   * them).
   */
  private static final int STOPPED_RUNS_REMEMBERED = 10_000;

  private static final ObjectMapper JSON = new ObjectMapper();

  /** Reads exactly one JSON value: trailing data is an error, not ignored. */
  private static final ObjectReader STRICT =
      JSON.reader().with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

  private final FencedToolExecutor executor;
  private final List<RunStopListener> listeners;
  private final Map<RunIdentity, RunStop> stopped =
      new LinkedHashMap<>() {
        @Override
        protected boolean removeEldestEntry(Map.Entry<RunIdentity, RunStop> eldest) {
          return size() > STOPPED_RUNS_REMEMBERED;
        }
      };

  /**
   * What identifies a run for local refusal: a forged token cannot stop a run it does not equal.
   */
  private record RunIdentity(LeaseKey key, long fence, UUID runId) {
    static RunIdentity of(FencingToken t) {
      return new RunIdentity(t.key(), t.fence(), t.runId());
    }
  }

  private final IdempotencyKeys idempotencyKeys;

  private AgentToolFence(Builder b) {
    this.executor = b.executor;
    this.listeners = List.copyOf(b.listeners);
    this.idempotencyKeys = b.idempotencyKeys;
  }

  /**
   * Which calls are the same call retried: a call whose tool and arguments give a key that a
   * finished call of the same run already had is answered with that call's journaled result, and
   * the tool does not run again; a duplicate of a call still running is refused. A newer run of the
   * session reusing the key runs its own call. Thread-safe, quick, free of side effects.
   */
  @FunctionalInterface
  public interface IdempotencyKeys {
    /**
     * The call's idempotency key.
     *
     * @param tool the tool's name
     * @param arguments the call's arguments, never null
     * @return the key, or empty for a call that may run each time
     */
    Optional<String> keyOf(String tool, JsonNode arguments);

    /**
     * No call is a retry of another: the default.
     *
     * @return the rule
     */
    static IdempotencyKeys none() {
      return (tool, arguments) -> Optional.empty();
    }

    /**
     * The key is the string argument {@code name}, when the call has one (not blank).
     *
     * @param name the argument's name, such as {@code "idempotencyKey"}
     * @return the rule
     */
    static IdempotencyKeys argument(String name) {
      if (name == null || name.isBlank()) {
        throw new IllegalArgumentException("argument name must not be blank");
      }
      return (tool, arguments) -> {
        JsonNode v = arguments.get(name);
        return v != null && v.isTextual() && !v.textValue().isBlank()
            ? Optional.of(v.textValue())
            : Optional.empty();
      };
    }
  }

  /**
   * Starts a builder.
   *
   * @param executor admits and journals the calls; it needs no registered tools
   * @return the builder
   * @throws IllegalArgumentException if the executor is null
   */
  public static Builder builder(FencedToolExecutor executor) {
    Arguments.required(executor, "executor");
    return new Builder(executor);
  }

  /**
   * Calls a framework's tool under the run's fence, with the arguments as the model sent them. The
   * idempotency key, if the builder's {@link IdempotencyKeys} give one, is scoped to the run as in
   * {@link #call(Fenced, String, JsonNode, Optional, AgentToolBody, Function)}; the journal records
   * the tool's result as a JSON string.
   *
   * @param run the run's lease (refused locally once lost) or its token
   * @param toolName the tool's name, as the journal records it
   * @param argumentsJson the arguments as the model sent them: one JSON value, or null or blank for
   *     none
   * @param body the framework's tool, run only once the call is admitted
   * @param journaled what the journal records of the tool's result
   * @param <R> what the tool returns
   * @return {@link AgentToolOutcome.Ran}, {@link AgentToolOutcome.Replayed} or {@link
   *     AgentToolOutcome.Refused}; listeners have been told of a refusal
   * @throws IllegalArgumentException if an argument is null, or the arguments are not one JSON
   *     value (the tool did not run, nothing was journaled)
   * @throws RuntimeException what the tool threw, unchanged when unchecked, so the framework
   *     handles its own tool failures as it would without the fence
   * @throws ToolCallFailedException if the tool threw a checked exception
   * @throws io.leasehold.adapters.ResourceAccessException if the journal cannot be written before
   *     the tool runs
   * @throws io.leasehold.adapters.tool.DuplicateCallException if the same run's call with the same
   *     idempotency key is still running
   */
  public <R> AgentToolOutcome<R> call(
      Fenced run,
      String toolName,
      String argumentsJson,
      AgentToolBody<R> body,
      Function<? super R, String> journaled) {
    if (journaled == null || toolName == null) {
      throw new IllegalArgumentException(
          "run, toolName, body and journaled must not be null or blank");
    }
    JsonNode arguments = parse(toolName, argumentsJson);
    return call(
        run,
        toolName,
        arguments,
        idempotencyKeys.keyOf(toolName, arguments),
        body,
        value -> {
          String text = journaled.apply(value);
          return text == null ? NullNode.getInstance() : TextNode.valueOf(text);
        });
  }

  /**
   * Calls a tool under the run's fence: the one path of every agent tool call, from LangChain4j,
   * Spring AI, a fenced MCP server or a plain loop. The lease is asked for its token once here; a
   * run already stopped is refused without touching the journal; otherwise the executor verifies
   * the token, journals the call and admits its fence, and the body runs.
   *
   * <p>A call with an idempotency key runs once per run and key: the same run's retry is answered
   * from the journal ({@link AgentToolOutcome.Replayed}), and a newer run reusing the key runs its
   * own call (the journal records the key as {@code <run id>:<key>}).
   *
   * <p>Once the body ran, its outcome is the answer: what it returned (even if the journal then
   * failed to record it, which is logged at WARNING and leaves the call in doubt), or what it
   * threw.
   *
   * @param run the run's lease (refused locally once lost) or its token
   * @param toolName the tool's name, as the journal records it
   * @param arguments the call's arguments ({@code NullNode} for none)
   * @param idempotencyKey the caller's idempotency key for the call, or empty
   * @param body the tool, run only once the call is admitted
   * @param journaled what the journal records of the tool's result (null is JSON null)
   * @param <R> what the tool returns
   * @return {@link AgentToolOutcome.Ran}, {@link AgentToolOutcome.Replayed} or {@link
   *     AgentToolOutcome.Refused}; listeners have been told of a refusal
   * @throws IllegalArgumentException if an argument is null or the name blank
   * @throws RuntimeException what the tool threw, unchanged when unchecked
   * @throws ToolCallFailedException if the tool threw a checked exception
   * @throws io.leasehold.adapters.ResourceAccessException if the journal cannot be written before
   *     the tool runs
   * @throws io.leasehold.adapters.tool.DuplicateCallException if the same run's call with the same
   *     idempotency key is still running
   */
  public <R> AgentToolOutcome<R> call(
      Fenced run,
      String toolName,
      JsonNode arguments,
      Optional<String> idempotencyKey,
      AgentToolBody<R> body,
      Function<? super R, JsonNode> journaled) {
    if (run == null
        || toolName == null
        || toolName.isBlank()
        || arguments == null
        || idempotencyKey == null
        || body == null
        || journaled == null) {
      throw new IllegalArgumentException(
          "run, toolName, arguments, idempotencyKey, body and journaled must not be null or blank");
    }
    FencingToken token;
    try {
      token = Fenced.present(run);
    } catch (LeaseLostException e) {
      return refused(e.token(), toolName, e);
    }
    RunStop earlier = earlierStop(token);
    if (earlier != null) {
      return new AgentToolOutcome.Refused<>(new RunStop(token, toolName, earlier.refusal()));
    }
    // Replays are per run: a newer run reusing a key runs its own call, never an older run's
    // answer.
    Optional<String> perRun = idempotencyKey.map(k -> token.runId() + ":" + k);
    AdmittedBody<R> tool = new AdmittedBody<>(toolName, perRun, body, journaled);
    ToolResult result;
    try {
      result = executor.callPresented(run, token, tool, arguments);
    } catch (ToolCallFailedException e) {
      throw toolsOwn(e);
    } catch (StaleFenceException | LeaseLostException | TokenVerificationException e) {
      return refused(token, toolName, e);
    } catch (RuntimeException | Error e) {
      if (!tool.ran) {
        throw e;
      }
      return afterJournalFailure(tool, token, e);
    }
    if (result.replayed()) {
      // The body did not run: an earlier call of this run with the same idempotency key finished.
      return new AgentToolOutcome.Replayed<>(result.value(), result.callId());
    }
    return new AgentToolOutcome.Ran<>(tool.value, result.callId());
  }

  /**
   * The answer once the body ran but the journal failed to record its outcome: the body's own
   * outcome, since the tool did run (the journal lists the call in doubt).
   */
  private static <R> AgentToolOutcome<R> afterJournalFailure(
      AdmittedBody<R> tool, FencingToken token, Throwable e) {
    if (tool.thrown == null) {
      LOG.log(
          System.Logger.Level.WARNING,
          "the tool "
              + tool.name
              + " ran for "
              + token.unsigned()
              + " but its outcome could not be journaled; the call stays in doubt",
          e);
      return new AgentToolOutcome.Ran<>(tool.value, tool.callId);
    }
    if (tool.thrown != e) {
      LOG.log(
          System.Logger.Level.WARNING,
          "the tool "
              + tool.name
              + " threw for "
              + token.unsigned()
              + " and its failure could not be journaled; the call stays in doubt",
          e);
    }
    if (tool.thrown instanceof RuntimeException re) {
      throw re;
    }
    if (tool.thrown instanceof Error err) {
      throw err;
    }
    throw new ToolCallFailedException(tool.callId, tool.name, tool.thrown);
  }

  /** What the tool threw, unchanged when unchecked. */
  private static RuntimeException toolsOwn(ToolCallFailedException e) {
    if (e.getCause() instanceof RuntimeException re) {
      return re;
    }
    if (e.getCause() instanceof Error err) {
      throw err;
    }
    return e;
  }

  /** The tool as the executor calls it, remembering whether it ran and how it ended. */
  private static final class AdmittedBody<R> implements FencedTool {
    private final String name;
    private final Optional<String> idempotencyKey;
    private final AgentToolBody<R> body;
    private final Function<? super R, JsonNode> journaled;
    private volatile boolean ran;
    private volatile UUID callId;
    private volatile R value;
    private volatile Throwable thrown;

    AdmittedBody(
        String name,
        Optional<String> idempotencyKey,
        AgentToolBody<R> body,
        Function<? super R, JsonNode> journaled) {
      this.name = name;
      this.idempotencyKey = idempotencyKey;
      this.body = body;
      this.journaled = journaled;
    }

    @Override
    public String name() {
      return name;
    }

    @Override
    public Optional<String> idempotencyKey(JsonNode arguments) {
      return idempotencyKey;
    }

    @Override
    public JsonNode call(ToolInvocation invocation) throws Exception {
      callId = invocation.callId();
      ran = true;
      try {
        value = body.run(invocation);
      } catch (Exception | Error e) {
        thrown = e;
        throw e;
      }
      JsonNode node = journaled.apply(value);
      return node == null ? NullNode.getInstance() : node;
    }
  }

  /**
   * Starts a run of a session: from now on every call of an older run is refused, even before this
   * run calls a tool, and the calls of older runs that nobody confirmed are listed, for the run to
   * decide what to redo. See {@link FencedToolExecutor#startRun}.
   *
   * @param run the new run's lease or token
   * @return the admission and the in-doubt calls, oldest first
   * @throws StaleFenceException if a newer run has started already; this one must not run
   */
  public FencedToolExecutor.RunStart startRun(Fenced run) {
    return executor.startRun(run);
  }

  /**
   * The executor that admits and journals the calls.
   *
   * @return the executor
   */
  public FencedToolExecutor executor() {
    return executor;
  }

  private RunStop earlierStop(FencingToken token) {
    synchronized (stopped) {
      return stopped.get(RunIdentity.of(token));
    }
  }

  private <R> AgentToolOutcome<R> refused(FencingToken token, String toolName, Throwable e) {
    RunStop stop = new RunStop(token, toolName, Refusal.of(e, token));
    boolean first = true;
    if (stop.reason() == Refusal.Reason.SUPERSEDED || stop.reason() == Refusal.Reason.LEASE_LOST) {
      // Only these are facts about the run; a token that failed verification proves nothing about
      // the run it names: never remember it.
      synchronized (stopped) {
        first = stopped.putIfAbsent(RunIdentity.of(token), stop) == null;
      }
    }
    if (first) {
      for (RunStopListener l : listeners) {
        l.onStop(stop);
      }
    }
    return new AgentToolOutcome.Refused<>(stop);
  }

  /**
   * The arguments as JSON, strictly: one JSON value and nothing after it (issue 27). A tool is
   * never run with arguments that are not what the model meant to send; the framework reports the
   * error to the model. No arguments at all (null or blank) are JSON null.
   */
  private static JsonNode parse(String toolName, String argumentsJson) {
    if (argumentsJson == null || argumentsJson.isBlank()) {
      return NullNode.getInstance();
    }
    try {
      return STRICT.readTree(argumentsJson);
    } catch (JsonProcessingException e) {
      // The location, not the text: arguments may hold secrets, and messages reach logs.
      throw new IllegalArgumentException(
          "the arguments of tool "
              + toolName
              + " are not one JSON value ("
              + e.getOriginalMessage()
              + " at "
              + e.getLocation().offsetDescription()
              + "); the tool did not run",
          e);
    }
  }

  /** Options of an {@link AgentToolFence}. Not thread-safe. */
  public static final class Builder {
    private final FencedToolExecutor executor;
    private final List<RunStopListener> listeners = new ArrayList<>();
    private IdempotencyKeys idempotencyKeys = IdempotencyKeys.none();

    private Builder(FencedToolExecutor executor) {
      this.executor = executor;
    }

    /**
     * Adds a listener told when a run must stop.
     *
     * @param listener the listener
     * @return this builder
     */
    public Builder listener(RunStopListener listener) {
      Arguments.required(listener, "listener");
      listeners.add(listener);
      return this;
    }

    /**
     * Which calls are retries of an earlier one (default {@link IdempotencyKeys#none()}).
     *
     * @param keys the rule
     * @return this builder
     */
    public Builder idempotencyKeys(IdempotencyKeys keys) {
      this.idempotencyKeys = Arguments.required(keys, "keys");
      return this;
    }

    /**
     * Builds the fence.
     *
     * @return the fence
     */
    public AgentToolFence build() {
      return new AgentToolFence(this);
    }
  }
}
