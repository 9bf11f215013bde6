package io.leasehold.adk;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.adk.JsonBaseModel;
import com.google.adk.agents.InvocationContext;
import com.google.adk.agents.RunConfig;
import com.google.adk.plugins.Plugin;
import com.google.adk.tools.BaseTool;
import com.google.adk.tools.FunctionTool;
import com.google.adk.tools.ToolContext;
import io.leasehold.adapters.agent.AgentToolFence;
import io.leasehold.adapters.agent.AgentToolOutcome;
import io.leasehold.adapters.agent.FrameworkToolFence;
import io.leasehold.adapters.agent.RunStop;
import io.leasehold.adapters.agent.RunStoppedException;
import io.leasehold.adapters.agent.SessionLeases;
import io.leasehold.adapters.agent.UnresolvedSessionException;
import io.leasehold.fencing.Fenced;
import io.leasehold.fencing.FencingToken;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * Fences every tool call of a Google Agent Development Kit (ADK) agent. Register {@link #plugin()}
 * on the {@code Runner}: before each model call it puts a fenced decorator in place of every tool
 * the model may call (the agent's tools, its toolsets', its sub-agents'), and before each tool call
 * it refuses a tool that is not fenced. Each call is admitted through an {@link AgentToolFence}
 * with the current run's token before the tool runs; a superseded run's call is refused and its
 * tool never runs.
 *
 * <pre>{@code
 * AdkToolFence toolFence = AdkToolFence.builder(agentToolFence).build();
 * Runner runner = new InMemoryRunner(agent, "trips", List.of(toolFence.plugin()));
 * runner.runAsync(userId, sessionId, message, AdkToolFence.runConfig(lease)).blockingForEach(...);
 * }</pre>
 *
 * <h2>Which run a call belongs to</h2>
 *
 * The lease passed with the invocation, in its {@link RunConfig}'s custom metadata ({@link
 * #runConfig(Fenced)}), wins: a run config belongs to one invocation, so two runs of one session
 * never lend each other a lease (session state, shared by the session's runs, would). Without one,
 * the {@link Builder#sessions(Function, SessionLeases) session resolver} maps the call's {@link
 * ToolContext} (its user and session) to a lease key, and the session's registered run is used. A
 * call that can be tied to no run throws {@link UnresolvedSessionException}; the tool does not run.
 *
 * <h2>A refused call</h2>
 *
 * By default the decorator fails the call with {@link RunStoppedException}: ADK hands it to the
 * on-tool-error callbacks and, when none answers it, ends the invocation with it (it comes out of
 * the runner's event stream). A call the user confirmed runs in ADK's confirmation step, which
 * drops a failing call: its refusal is kept in the invocation and the plugin ends the invocation
 * with it before the model is called again. A {@code FunctionTool} call that ADK answers by asking
 * for the user's confirmation (or by reporting the rejection) is not admitted: the confirmed call
 * is. With {@link Builder#endRunOnRefusal(boolean) endRunOnRefusal(false)} the refusal is the
 * tool's response instead: {@code error} holds {@link RunStop#messageForModel()} and {@value
 * #REFUSAL_KEY} the {@link io.leasehold.fencing.Refusal}'s written form (as on the MCP wire), and
 * every later call of the run is refused locally. The tool reads the admitted token with {@link
 * #token(ToolContext)} to forward it downstream.
 *
 * <p>Thread-safe; works with ADK's parallel tool execution (each call is admitted on its own).
 */
public final class AdkToolFence {
  /** The run config's custom-metadata entry that carries the run's lease ({@link Fenced}). */
  public static final String LEASE_KEY = "leasehold.lease";

  /** The invocation's callback-data entry through which a tool sees the admitted token. */
  public static final String TOKEN_KEY = "leasehold.token";

  /** The response entry that holds a refusal's written form. */
  public static final String REFUSAL_KEY = "io.leasehold/refusal";

  private static final TypeReference<Map<String, Object>> RESPONSE = new TypeReference<>() {};

  /** The invocation's callback-data entry that holds a confirmed call's refusal. */
  private static final String STOP_KEY = "leasehold.stop";

  /**
   * FunctionTool's own test of {@code requireConfirmation}, which ADK 1.8.0 keeps package-private;
   * null where it cannot be read (another ADK version), and then every call is admitted.
   */
  private static final Method REQUIRES_CONFIRMATION = requiresConfirmation();

  private final AgentToolFence agentFence;
  private final FrameworkToolFence<ToolContext> core;
  private final boolean endRunOnRefusal;
  private final FencePlugin plugin;

  private AdkToolFence(Builder b) {
    this.agentFence = b.agentFence;
    this.core = b.fenceCore();
    this.endRunOnRefusal = b.endRun;
    this.plugin = new FencePlugin(this);
  }

  /** Where ADK carries the lease: the invocation's run config. */
  private static final FrameworkToolFence.Carrier<ToolContext> CARRIER =
      FrameworkToolFence.Carrier.of(
          context ->
              context == null
                  ? null
                  : context.invocationContext().runConfig().customMetadata().get(LEASE_KEY),
          context ->
              context == null
                  ? "a call without a tool context"
                  : "session " + context.invocationContext().session().id(),
          "run config entry " + LEASE_KEY,
          "pass AdkToolFence.runConfig(lease) to Runner.runAsync",
          "map the tool context's userId() and session to the run's lease key");

  /**
   * Starts a builder.
   *
   * @param fence admits and journals the calls
   * @return the builder
   */
  public static Builder builder(AgentToolFence fence) {
    return new Builder(fence);
  }

  /**
   * A run config that carries a run's lease: pass it to {@code Runner.runAsync}.
   *
   * @param run the run's lease
   * @return a default run config holding it
   */
  public static RunConfig runConfig(Fenced run) {
    return runConfig(RunConfig.builder().build(), run);
  }

  /**
   * Adds a run's lease to a run config, keeping its other settings and custom metadata.
   *
   * @param base the application's run config
   * @param run the run's lease
   * @return a copy of {@code base} holding it
   */
  public static RunConfig runConfig(RunConfig base, Fenced run) {
    if (base == null || run == null) {
      throw new IllegalArgumentException("base and run must not be null");
    }
    Map<String, Object> metadata = new LinkedHashMap<>(base.customMetadata());
    metadata.put(LEASE_KEY, run);
    return base.toBuilder().customMetadata(metadata).build();
  }

  /**
   * The token under which the current tool call was admitted, for a tool that forwards it
   * downstream (for example in the {@code Leasehold-Token} header). Declare a {@code ToolContext}
   * parameter named {@code toolContext} on the tool's method to receive the context.
   *
   * @param context the tool's context
   * @return the token, or empty outside a fenced call
   */
  public static Optional<FencingToken> token(ToolContext context) {
    if (context == null) {
      return Optional.empty();
    }
    Object t = context.invocationContext().callbackContextData().get(TOKEN_KEY);
    return t instanceof FencingToken ft ? Optional.of(ft) : Optional.empty();
  }

  /**
   * The plugin to register on the runner ({@code Runner.builder().plugins(...)} or {@code new
   * InMemoryRunner(agent, appName, plugins)}): it fences every tool of every agent the runner runs.
   * Register it first, so that no plugin registered before it answers a model call with tool calls
   * it never saw.
   *
   * @return the plugin, the same for every call
   */
  public Plugin plugin() {
    return plugin;
  }

  /**
   * Decorates one tool, for an agent's tool list ({@code LlmAgent.builder().tools(...)}). The
   * plugin fences every tool at each model call anyway; decorate a tool yourself where ADK calls an
   * agent's listed tools without a model call in between (a tool confirmed by the user, every tool
   * in live mode), which the plugin otherwise refuses. A tool another fence decorated is decorated
   * anew, by this one.
   *
   * @param tool the framework's tool
   * @return a tool with the same name, description and declaration that runs it only when the call
   *     is admitted
   */
  public BaseTool wrap(BaseTool tool) {
    if (tool == null) {
      throw new IllegalArgumentException("tool must not be null");
    }
    if (tool instanceof FencedTool fenced) {
      return fenced.decoratedBy(this);
    }
    return new FencedTool(this, tool);
  }

  /** Whether {@code tool} is this fence's decorator, which admits its calls through this fence. */
  boolean isOwn(BaseTool tool) {
    return tool instanceof FencedTool fenced && fenced.fence() == this;
  }

  /**
   * Leaves a user-confirmed call's failure for the plugin to end the invocation with. ADK runs a
   * confirmed call in its confirmation step, which logs a failing call and calls the model again;
   * the plugin's next before-model or after-run callback of the invocation fails with it instead.
   *
   * @return {@code failure}, to be thrown as well
   */
  <E extends RuntimeException> E stopLater(ToolContext context, E failure) {
    if (context != null && context.toolConfirmation().isPresent()) {
      context.invocationContext().callbackContextData().putIfAbsent(STOP_KEY, failure);
    }
    return failure;
  }

  /** The failure a confirmed call left for the invocation, taken so that it ends it once. */
  static Optional<RuntimeException> takeStop(InvocationContext invocation) {
    Object stop = invocation.callbackContextData().remove(STOP_KEY);
    return stop instanceof RuntimeException e ? Optional.of(e) : Optional.empty();
  }

  /**
   * Whether ADK answers this call without running the function: a {@link FunctionTool} built with
   * {@code requireConfirmation} asks the user (no confirmation yet) or reports the rejection. Such
   * a call is not admitted, so that its idempotency key is still free for the confirmed call.
   */
  private static boolean answeredWithoutRunning(BaseTool tool, ToolContext context) {
    if (!(tool instanceof FunctionTool function)
        || REQUIRES_CONFIRMATION == null
        || context == null) {
      return false;
    }
    try {
      return Boolean.TRUE.equals(REQUIRES_CONFIRMATION.invoke(function))
          && context.toolConfirmation().map(c -> !c.confirmed()).orElse(true);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException(
          "cannot read whether tool " + tool.name() + " needs the user's confirmation", e);
    }
  }

  private static Method requiresConfirmation() {
    try {
      Method m = FunctionTool.class.getDeclaredMethod("requireConfirmation");
      m.setAccessible(true);
      return m;
    } catch (NoSuchMethodException | RuntimeException e) {
      return null; // an ADK without it: calls are admitted as they come, confirmed or not
    }
  }

  /**
   * Decorates tools, in order.
   *
   * @param tools the framework's tools
   * @return the decorated tools
   */
  public List<BaseTool> wrap(List<? extends BaseTool> tools) {
    if (tools == null) {
      throw new IllegalArgumentException("tools must not be null");
    }
    List<BaseTool> out = new ArrayList<>(tools.size());
    for (BaseTool t : tools) {
      out.add(wrap(t));
    }
    return out;
  }

  /**
   * Admits one call and runs the tool, or refuses it: what {@link FencedTool} runs.
   *
   * @return the tool's response, a replayed response, or the refusal's response
   */
  Map<String, Object> call(
      ToolContext context,
      BaseTool tool,
      Map<String, Object> args,
      java.util.concurrent.Callable<Map<String, Object>> body) {
    if (answeredWithoutRunning(tool, context)) {
      return tool.runAsync(args, context).blockingGet();
    }
    Fenced run = core.runOf(context);
    AgentToolOutcome<Map<String, Object>> outcome =
        agentFence.call(
            run,
            tool.name(),
            json(tool.name(), args),
            admitted -> {
              if (context != null) {
                context.invocationContext().callbackContextData().put(TOKEN_KEY, admitted.token());
              }
              return body.call();
            },
            AdkToolFence::journaled);
    if (outcome instanceof AgentToolOutcome.Ran<Map<String, Object>> ran) {
      return ran.value();
    }
    if (outcome instanceof AgentToolOutcome.Replayed<Map<String, Object>> replayed) {
      return replayed(replayed.journaled());
    }
    RunStop stop = ((AgentToolOutcome.Refused<Map<String, Object>>) outcome).stop();
    if (endRunOnRefusal) {
      throw new RunStoppedException(stop);
    }
    Map<String, Object> refusal = new LinkedHashMap<>();
    refusal.put("error", stop.messageForModel());
    refusal.put(REFUSAL_KEY, stop.refusal().written());
    return refusal;
  }

  private static ObjectMapper mapper() {
    return JsonBaseModel.getMapper();
  }

  /** The arguments as the model sent them, as JSON for the journal and the idempotency keys. */
  private static String json(String tool, Map<String, Object> args) {
    try {
      return mapper().writeValueAsString(args == null ? Map.of() : args);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException(
          "the arguments of tool " + tool + " cannot be written as JSON; the tool did not run", e);
    }
  }

  /** What the journal records of a response: its JSON text, so that a retry can be answered. */
  private static String journaled(Map<String, Object> response) {
    if (response == null) {
      return null;
    }
    try {
      return mapper().writeValueAsString(response);
    } catch (JsonProcessingException e) {
      // The tool ran; its response is still the answer. A retry then reads it as text.
      return String.valueOf(response);
    }
  }

  /** A retried call's response, from what the journal recorded of the first call's. */
  private static Map<String, Object> replayed(JsonNode journaled) {
    if (journaled.isNull()) {
      return Map.of();
    }
    if (journaled.isTextual()) {
      try {
        JsonNode parsed = mapper().readTree(journaled.textValue());
        if (parsed != null && parsed.isObject()) {
          return mapper().convertValue(parsed, RESPONSE);
        }
      } catch (JsonProcessingException e) {
        // Not a response the fence journaled (an older record): hand the text over as it is.
      }
      Map<String, Object> text = new HashMap<>();
      text.put("result", journaled.textValue());
      return text;
    }
    return Map.of("result", mapper().convertValue(journaled, Object.class));
  }

  /**
   * Options of an {@link AdkToolFence}: those of every framework fence ({@link
   * FrameworkToolFence.Builder}; the session resolver is given the call's {@link ToolContext}). Not
   * thread-safe.
   */
  public static final class Builder extends FrameworkToolFence.Builder<Builder, ToolContext> {
    private final AgentToolFence agentFence;
    private boolean endRun = true;

    private Builder(AgentToolFence fence) {
      super(fence);
      this.agentFence = fence;
    }

    private FrameworkToolFence<ToolContext> fenceCore() {
      return core(CARRIER, context -> context);
    }

    @Override
    public Builder endRunOnRefusal(boolean end) {
      this.endRun = end;
      return super.endRunOnRefusal(end);
    }

    /**
     * Builds the fence.
     *
     * @return the fence
     */
    public AdkToolFence build() {
      return new AdkToolFence(this);
    }
  }
}
