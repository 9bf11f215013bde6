package io.leasehold.springai;

import io.leasehold.adapters.agent.AgentToolFence;
import io.leasehold.adapters.agent.FrameworkToolFence;
import io.leasehold.adapters.agent.RunStoppedException;
import io.leasehold.adapters.agent.SessionLeases;
import io.leasehold.adapters.agent.UnresolvedSessionException;
import io.leasehold.fencing.Fenced;
import io.leasehold.fencing.FencingToken;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.springframework.ai.chat.model.ToolContext;
import org.springframework.ai.support.ToolCallbacks;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.ai.tool.ToolCallbackProvider;
import org.springframework.ai.tool.definition.ToolDefinition;
import org.springframework.ai.tool.metadata.ToolMetadata;

/**
 * Fences every tool call of a Spring AI {@code ChatClient}. It decorates the framework's own {@link
 * ToolCallback}s (the user's tool code is unchanged): each call is admitted through an {@link
 * AgentToolFence} with the current run's token before the tool runs, and a superseded run's call is
 * refused, the tool never invoked.
 *
 * <pre>{@code
 * SpringAiToolFence fence = SpringAiToolFence.builder(agentToolFence).build();
 * String answer = chatClient.prompt()
 *     .user(question)
 *     .tools(fence.wrapObjects(new BookingTools()))
 *     .toolContext(SpringAiToolFence.toolContext(lease))
 *     .call()
 *     .content();
 * }</pre>
 *
 * <h2>Which run a call belongs to</h2>
 *
 * The lease passed in the tool context ({@link #toolContext(Fenced)}) wins. Without one, the {@link
 * Builder#sessions(Function, SessionLeases) session resolver} maps the tool context (usually its
 * {@code ChatMemory.CONVERSATION_ID} entry, passed with {@code .toolContext(...)}) to a lease key,
 * and the session's registered run is used. When both are present they must name the same session.
 * A call that can be tied to no run throws {@link UnresolvedSessionException}; the tool does not
 * run.
 *
 * <h2>A refused call</h2>
 *
 * By default the decorator throws {@link RunStoppedException}, which ends the {@code ChatClient}
 * call (Spring AI turns only its own {@code ToolExecutionException} into text). With {@link
 * Builder#endRunOnRefusal(boolean) endRunOnRefusal(false)} the refusal is returned as the tool's
 * result, so the model reads that its run was superseded and must stop, and every later call of the
 * run is refused locally. The tool reads the admitted token from {@link #token(ToolContext)}
 * (declare a {@link ToolContext} parameter on the {@code @Tool} method) to forward it downstream.
 *
 * <p>Thread-safe.
 */
public final class SpringAiToolFence {
  /** The tool-context entry that carries the run's lease ({@link Fenced}). */
  public static final String LEASE_KEY = "leasehold.lease";

  /** The tool-context entry through which the tool sees the admitted {@link FencingToken}. */
  public static final String TOKEN_KEY = "leasehold.token";

  private final FrameworkToolFence<ToolContext> core;

  private SpringAiToolFence(Builder b) {
    this.core = b.fenceCore();
  }

  /** Where Spring AI carries the lease: the tool context passed with the prompt. */
  private static final FrameworkToolFence.Carrier<ToolContext> CARRIER =
      FrameworkToolFence.Carrier.of(
          context -> context == null ? null : context.getContext().get(LEASE_KEY),
          context -> "the tool context",
          "tool-context entry " + LEASE_KEY,
          "pass .toolContext(SpringAiToolFence.toolContext(lease)) with the prompt",
          "pass the conversation id with .toolContext(Map.of(ChatMemory.CONVERSATION_ID, id))");

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
   * A tool context that carries a run's lease, for {@code .toolContext(...)}.
   *
   * @param run the run's lease
   * @return a new mutable map holding it; add entries of your own if you like
   */
  public static Map<String, Object> toolContext(Fenced run) {
    if (run == null) {
      throw new IllegalArgumentException("run must not be null");
    }
    Map<String, Object> m = new HashMap<>();
    m.put(LEASE_KEY, run);
    return m;
  }

  /**
   * The token under which the current tool call was admitted, for a tool that forwards it
   * downstream (for example in the {@code Leasehold-Token} header).
   *
   * @param context the tool context Spring AI passed the tool
   * @return the token, or empty outside a fenced call
   */
  public static Optional<FencingToken> token(@Nullable ToolContext context) {
    if (context == null) {
      return Optional.empty();
    }
    Object t = context.getContext().get(TOKEN_KEY);
    return t instanceof FencingToken ft ? Optional.of(ft) : Optional.empty();
  }

  /**
   * Decorates one callback.
   *
   * @param callback the framework's callback
   * @return a callback that runs it only when the call is admitted
   */
  public ToolCallback wrap(ToolCallback callback) {
    if (callback == null) {
      throw new IllegalArgumentException("callback must not be null");
    }
    return callback instanceof FencedCallback ? callback : new FencedCallback(callback);
  }

  /**
   * Decorates callbacks, for {@code ChatClient}'s {@code .tools(...)}.
   *
   * @param callbacks the callbacks
   * @return them, decorated, in the same order
   */
  public ToolCallback[] wrap(ToolCallback... callbacks) {
    if (callbacks == null) {
      throw new IllegalArgumentException("callbacks must not be null");
    }
    ToolCallback[] out = new ToolCallback[callbacks.length];
    for (int i = 0; i < callbacks.length; i++) {
      out[i] = wrap(callbacks[i]);
    }
    return out;
  }

  /**
   * Turns objects with {@code @Tool} methods into fenced callbacks, through Spring AI's own {@link
   * ToolCallbacks#from}, for {@code ChatClient}'s {@code .tools(...)}.
   *
   * @param objectsWithTools the objects
   * @return a provider of their tools, fenced
   */
  public ToolCallbackProvider wrapObjects(Object... objectsWithTools) {
    if (objectsWithTools == null || objectsWithTools.length == 0) {
      throw new IllegalArgumentException("give at least one object with @Tool methods");
    }
    return ToolCallbackProvider.from(wrap(ToolCallbacks.from(objectsWithTools)));
  }

  private final class FencedCallback implements ToolCallback {
    private final ToolCallback delegate;

    FencedCallback(ToolCallback delegate) {
      this.delegate = delegate;
    }

    @Override
    public ToolDefinition getToolDefinition() {
      return delegate.getToolDefinition();
    }

    @Override
    public ToolMetadata getToolMetadata() {
      return delegate.getToolMetadata();
    }

    @Override
    public String call(String toolInput) {
      return call(toolInput, null);
    }

    @Override
    public String call(String toolInput, @Nullable ToolContext toolContext) {
      return core.call(
          toolContext,
          delegate.getToolDefinition().name(),
          toolInput,
          call -> {
            Map<String, Object> entries =
                new HashMap<>(toolContext == null ? Map.of() : toolContext.getContext());
            entries.put(TOKEN_KEY, call.token());
            return delegate.call(toolInput, new ToolContext(entries));
          },
          text -> text,
          journaled -> journaled == null ? "" : journaled,
          message -> message);
    }

    @Override
    public String toString() {
      return "Fenced[" + delegate.getToolDefinition().name() + "]";
    }
  }

  /**
   * Options of a {@link SpringAiToolFence}: those of every framework fence ({@link
   * FrameworkToolFence.Builder}; the session resolver is given the tool context, usually its {@code
   * ChatMemory.CONVERSATION_ID} entry, and an empty one when Spring AI passes none). Not
   * thread-safe.
   */
  public static final class Builder extends FrameworkToolFence.Builder<Builder, ToolContext> {
    private Builder(AgentToolFence fence) {
      super(fence);
    }

    private FrameworkToolFence<ToolContext> fenceCore() {
      return core(CARRIER, context -> context == null ? new ToolContext(Map.of()) : context);
    }

    /**
     * Builds the fence.
     *
     * @return the fence
     */
    public SpringAiToolFence build() {
      return new SpringAiToolFence(this);
    }
  }
}
