package io.leasehold.adapters.agent;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
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
import io.leasehold.fencing.StaleFenceException;
import io.leasehold.fencing.TokenVerificationException;
import io.leasehold.fencing.internal.Arguments;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.function.Function;

/**
 * Admits an agent framework's tool calls through a {@link FencedToolExecutor}: a call runs only if
 * its run is still the newest of its session, every call is journaled, and a refused call becomes
 * a {@link RunStop} the model can read. The LangChain4j and Spring AI integrations wrap their
 * framework's tools with it; a plain function-calling loop calls it directly.
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
  /** Tokens remembered as stopped; beyond this the oldest are forgotten (the journal still refuses them). */
  private static final int STOPPED_RUNS_REMEMBERED = 10_000;

  private static final ObjectMapper JSON = new ObjectMapper();

  /** Reads exactly one JSON value: trailing data is an error, not ignored. */
  private static final com.fasterxml.jackson.databind.ObjectReader STRICT =
      JSON.reader().with(com.fasterxml.jackson.databind.DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

  private final FencedToolExecutor executor;
  private final List<RunStopListener> listeners;
  private final Map<RunIdentity, RunStop> stopped =
      new LinkedHashMap<>() {
        @Override
        protected boolean removeEldestEntry(Map.Entry<RunIdentity, RunStop> eldest) {
          return size() > STOPPED_RUNS_REMEMBERED;
        }
      };

  /** What identifies a run for local refusal: a forged token cannot stop a run it does not equal. */
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
   * finished call of the same session already had is answered with that call's journaled result,
   * and the tool does not run again; a duplicate of a call still running is refused. Thread-safe,
   * quick, free of side effects.
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
    java.util.Optional<String> keyOf(String tool, JsonNode arguments);

    /**
     * No call is a retry of another: the default.
     *
     * @return the rule
     */
    static IdempotencyKeys none() {
      return (tool, arguments) -> java.util.Optional.empty();
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
        return v != null && v.isTextual() && !v.textValue().isBlank() ? java.util.Optional.of(v.textValue()) : java.util.Optional.empty();
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
   * Calls a framework's tool under the run's fence.
   *
   * @param run the run's lease (refused locally once lost) or its token
   * @param toolName the tool's name, as the journal records it
   * @param argumentsJson the arguments as the model sent them: one JSON value, or null or blank
   *     for none
   * @param body the framework's tool, run only once the call is admitted
   * @param journaled what the journal records of the tool's result
   * @param <R> what the tool returns
   * @return {@link AgentToolOutcome.Ran}, {@link AgentToolOutcome.Replayed} or {@link
   *     AgentToolOutcome.Refused}; listeners have been
   *     told of a refusal
   * @throws IllegalArgumentException if an argument is null, or the arguments are not one JSON
   *     value (the tool did not run, nothing was journaled)
   * @throws RuntimeException what the tool threw, unchanged when unchecked, so the framework
   *     handles its own tool failures as it would without the fence
   * @throws ToolCallFailedException if the tool threw a checked exception
   * @throws io.leasehold.adapters.ResourceAccessException if the journal cannot be written
   */
  public <R> AgentToolOutcome<R> call(
      Fenced run, String toolName, String argumentsJson, AgentToolBody<R> body, Function<? super R, String> journaled) {
    if (run == null || toolName == null || toolName.isBlank() || body == null || journaled == null) {
      throw new IllegalArgumentException("run, toolName, body and journaled must not be null or blank");
    }
    FencingToken token;
    try {
      token = Fenced.present(run);
    } catch (LeaseLostException e) {
      return refused(new RunStop(e.token(), toolName, RunStop.Reason.LEASE_LOST, OptionalLong.empty(), e.getMessage()));
    }
    RunStop earlier = earlierStop(token);
    if (earlier != null) {
      return new AgentToolOutcome.Refused<>(
          new RunStop(token, toolName, earlier.reason(), earlier.newerFence(), earlier.detail()));
    }
    Object[] returned = new Object[1];
    FencedTool tool =
        new FencedTool() {
          @Override
          public String name() {
            return toolName;
          }

          @Override
          public java.util.Optional<String> idempotencyKey(JsonNode arguments) {
            return idempotencyKeys.keyOf(toolName, arguments);
          }

          @Override
          public JsonNode call(ToolInvocation invocation) throws Exception {
            R value = body.run(invocation);
            returned[0] = value;
            String text = journaled.apply(value);
            return text == null ? NullNode.getInstance() : TextNode.valueOf(text);
          }
        };
    ToolResult result;
    try {
      result = executor.call(run, tool, parse(toolName, argumentsJson));
    } catch (StaleFenceException e) {
      return refused(new RunStop(token, toolName, RunStop.Reason.SUPERSEDED, OptionalLong.of(e.highestFence()), e.getMessage()));
    } catch (LeaseLostException e) {
      return refused(new RunStop(e.token(), toolName, RunStop.Reason.LEASE_LOST, OptionalLong.empty(), e.getMessage()));
    } catch (TokenVerificationException e) {
      return refused(new RunStop(token, toolName, RunStop.Reason.UNVERIFIED, OptionalLong.empty(), e.getMessage()));
    } catch (ToolCallFailedException e) {
      if (e.getCause() instanceof RuntimeException re) {
        throw re;
      }
      if (e.getCause() instanceof Error err) {
        throw err;
      }
      throw e;
    }
    if (result.replayed()) {
      // The body did not run: an earlier call with the same idempotency key finished.
      return new AgentToolOutcome.Replayed<>(result.value().isNull() ? null : result.value().asText(), result.callId());
    }
    @SuppressWarnings("unchecked")
    R value = (R) returned[0];
    return new AgentToolOutcome.Ran<>(value, result.callId());
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

  private <R> AgentToolOutcome<R> refused(RunStop stop) {
    boolean first = true;
    if (stop.reason() != RunStop.Reason.UNVERIFIED) {
      // A token that failed verification proves nothing about the run it names: never remember it.
      synchronized (stopped) {
        first = stopped.putIfAbsent(RunIdentity.of(stop.token()), stop) == null;
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
   * never run with arguments that are not what the model meant to send; the framework reports
   * the error to the model. No arguments at all (null or blank) are JSON null.
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
          "the arguments of tool " + toolName + " are not one JSON value (" + e.getOriginalMessage()
              + " at " + e.getLocation().offsetDescription() + "); the tool did not run",
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
