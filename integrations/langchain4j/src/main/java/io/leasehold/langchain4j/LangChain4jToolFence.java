package io.leasehold.langchain4j;

import dev.langchain4j.agent.tool.Tool;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.agent.tool.ToolSpecifications;
import dev.langchain4j.invocation.InvocationContext;
import dev.langchain4j.invocation.InvocationParameters;
import dev.langchain4j.service.tool.AiServiceTool;
import dev.langchain4j.service.tool.DefaultToolExecutor;
import dev.langchain4j.service.tool.ToolErrorHandlerResult;
import dev.langchain4j.service.tool.ToolExecutionErrorHandler;
import dev.langchain4j.service.tool.ToolExecutionResult;
import dev.langchain4j.service.tool.ToolExecutor;
import dev.langchain4j.service.tool.ToolProvider;
import dev.langchain4j.service.tool.ToolProviderResult;
import io.leasehold.adapters.agent.AgentToolFence;
import io.leasehold.adapters.agent.FrameworkToolFence;
import io.leasehold.adapters.agent.RunStoppedException;
import io.leasehold.adapters.agent.SessionLeases;
import io.leasehold.adapters.agent.UnresolvedSessionException;
import io.leasehold.fencing.Fenced;
import io.leasehold.fencing.FencingToken;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * Fences every tool call of a LangChain4j AI service. It decorates the framework's own {@link
 * ToolExecutor}s (the user's tool code is unchanged): each call is admitted through an {@link
 * AgentToolFence} with the current run's token before the tool runs, and a superseded run's call is
 * refused, the tool never invoked.
 *
 * <pre>{@code
 * LangChain4jToolFence fence = LangChain4jToolFence.builder(agentToolFence).build();
 * Assistant assistant = AiServices.builder(Assistant.class)
 *     .chatModel(model)
 *     .tools(fence.wrapObjects(new BookingTools()))
 *     .toolExecutionErrorHandler(fence.errorHandler())
 *     .build();
 * String answer = assistant.chat(question, LangChain4jToolFence.parameters(lease));
 * }</pre>
 *
 * <h2>Which run a call belongs to</h2>
 *
 * The lease passed with the invocation, as an {@link InvocationParameters} argument of the AI
 * service method ({@link #parameters(Fenced)}), wins. Without one, the {@link
 * Builder#sessions(Function, SessionLeases) session resolver} maps the invocation (usually its
 * {@code @MemoryId}) to a lease key, and the session's registered run is used. When both are
 * present they must name the same session. A call that can be tied to no run throws {@link
 * UnresolvedSessionException}; the tool does not run.
 *
 * <h2>A refused call</h2>
 *
 * By default the decorator throws {@link RunStoppedException}. With {@link #errorHandler()} set on
 * the AI service, it comes out of the service method and the agent loop ends there; without it,
 * LangChain4j hands its message to the model, which reads that the run was superseded and must
 * stop, and every later call of the run is refused locally. With {@link
 * Builder#endRunOnRefusal(boolean) endRunOnRefusal(false)} the refusal is returned as the tool's
 * result instead. The tool reads the admitted token from {@link #token(InvocationParameters)} to
 * forward it downstream.
 *
 * <p>Thread-safe; works with {@code executeToolsConcurrently()}.
 */
public final class LangChain4jToolFence {
  /** The invocation parameter that carries the run's lease ({@link Fenced}). */
  public static final String LEASE_PARAMETER = "leasehold.lease";

  /** The invocation parameter through which the tool sees the admitted {@link FencingToken}. */
  public static final String TOKEN_PARAMETER = "leasehold.token";

  private final FrameworkToolFence<InvocationContext> core;
  private final ToolExecutionErrorHandler fallbackErrors;

  private LangChain4jToolFence(Builder b) {
    this.core = b.fenceCore();
    this.fallbackErrors = b.fallbackErrors;
  }

  /** Where LangChain4j carries the lease: the AI service method's invocation parameters. */
  private static final FrameworkToolFence.Carrier<InvocationContext> CARRIER =
      FrameworkToolFence.Carrier.of(
          context -> {
            InvocationParameters parameters =
                context == null ? null : context.invocationParameters();
            return parameters == null ? null : parameters.get(LEASE_PARAMETER);
          },
          context -> "conversation " + (context == null ? null : context.chatMemoryId()),
          "invocation parameter " + LEASE_PARAMETER,
          "pass LangChain4jToolFence.parameters(lease) as the AI service method's"
              + " InvocationParameters argument",
          "declare @MemoryId on the AI service method, or pass InvocationParameters the resolver can read");

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
   * Invocation parameters that carry a run's lease: pass them as the AI service method's {@link
   * InvocationParameters} argument.
   *
   * @param run the run's lease
   * @return new, mutable parameters holding it
   */
  public static InvocationParameters parameters(Fenced run) {
    if (run == null) {
      throw new IllegalArgumentException("run must not be null");
    }
    return InvocationParameters.from(LEASE_PARAMETER, run);
  }

  /**
   * The token under which the current tool call was admitted, for a tool that forwards it
   * downstream (for example in the {@code Leasehold-Token} header). Declare an {@link
   * InvocationParameters} parameter on the {@code @Tool} method to receive it.
   *
   * @param parameters the invocation's parameters
   * @return the token, or empty outside a fenced call
   */
  public static Optional<FencingToken> token(InvocationParameters parameters) {
    if (parameters == null) {
      return Optional.empty();
    }
    Object t = parameters.get(TOKEN_PARAMETER);
    return t instanceof FencingToken ft ? Optional.of(ft) : Optional.empty();
  }

  /**
   * Decorates one executor.
   *
   * @param executor the framework's executor
   * @return an executor that runs it only when the call is admitted
   */
  public ToolExecutor wrap(ToolExecutor executor) {
    if (executor == null) {
      throw new IllegalArgumentException("executor must not be null");
    }
    if (executor instanceof FencedExecutor) {
      return executor;
    }
    return new FencedExecutor(executor);
  }

  /**
   * Decorates tools given as specifications and executors, for {@code AiServices.tools(Map)}.
   *
   * @param tools the tools
   * @return the same specifications with decorated executors, in the same order
   */
  public Map<ToolSpecification, ToolExecutor> wrap(Map<ToolSpecification, ToolExecutor> tools) {
    if (tools == null) {
      throw new IllegalArgumentException("tools must not be null");
    }
    Map<ToolSpecification, ToolExecutor> out = new LinkedHashMap<>();
    tools.forEach((spec, exec) -> out.put(spec, wrap(exec)));
    return out;
  }

  /**
   * Decorates every tool of a provider, for {@code AiServices.toolProvider(...)}.
   *
   * @param provider the provider
   * @return a provider whose tools are fenced
   */
  public ToolProvider wrap(ToolProvider provider) {
    if (provider == null) {
      throw new IllegalArgumentException("provider must not be null");
    }
    return new ToolProvider() {
      @Override
      public ToolProviderResult provideTools(
          dev.langchain4j.service.tool.ToolProviderRequest request) {
        ToolProviderResult result = provider.provideTools(request);
        if (result == null) {
          return null;
        }
        List<AiServiceTool> fenced = new ArrayList<>();
        for (AiServiceTool t : result.aiServiceTools()) {
          fenced.add(t.toBuilder().toolExecutor(wrap(t.toolExecutor())).build());
        }
        return ToolProviderResult.builder().addAll(fenced).build();
      }

      @Override
      public boolean isDynamic() {
        return provider.isDynamic();
      }
    };
  }

  /**
   * Turns objects with {@link Tool @Tool} methods into fenced tools, for {@code
   * AiServices.tools(List)}. Specifications, argument handling and return behaviour are
   * LangChain4j's own, built through its public API.
   *
   * @param objectsWithTools the objects
   * @return their tools, fenced
   * @throws IllegalArgumentException if an object has no {@code @Tool} method
   */
  public List<AiServiceTool> wrapObjects(Object... objectsWithTools) {
    if (objectsWithTools == null || objectsWithTools.length == 0) {
      throw new IllegalArgumentException("give at least one object with @Tool methods");
    }
    List<AiServiceTool> out = new ArrayList<>();
    for (Object o : objectsWithTools) {
      if (o == null || o instanceof Class<?>) {
        throw new IllegalArgumentException("tools must be objects, not null or a class: " + o);
      }
      int before = out.size();
      for (Method m : o.getClass().getMethods()) {
        Tool tool = m.getAnnotation(Tool.class);
        if (tool == null) {
          continue;
        }
        ToolExecutor executor =
            DefaultToolExecutor.builder()
                .object(o)
                .originalMethod(m)
                .methodToInvoke(m)
                .wrapToolArgumentsExceptions(true)
                .propagateToolExecutionExceptions(true)
                .build();
        out.add(
            AiServiceTool.builder()
                .toolSpecification(ToolSpecifications.toolSpecificationFrom(m))
                .toolExecutor(wrap(executor))
                .returnBehavior(tool.returnBehavior())
                .build());
      }
      if (out.size() == before) {
        throw new IllegalArgumentException(o.getClass().getName() + " has no public @Tool method");
      }
    }
    return out;
  }

  /**
   * An error handler for {@code AiServices.toolExecutionErrorHandler(...)} that lets {@link
   * RunStoppedException} and {@link UnresolvedSessionException} end the service call, and hands any
   * other tool failure to the model as text (as LangChain4j does by default, or as the {@link
   * Builder#errorHandler fallback} decides).
   *
   * @return the handler
   */
  public ToolExecutionErrorHandler errorHandler() {
    return (error, context) -> {
      Throwable raw = context == null ? null : context.rawError();
      for (Throwable t : new Throwable[] {raw, error}) {
        if (t instanceof RunStoppedException || t instanceof UnresolvedSessionException) {
          throw (RuntimeException) t;
        }
      }
      return fallbackErrors.handle(error, context);
    };
  }

  private final class FencedExecutor implements ToolExecutor {
    private final ToolExecutor delegate;

    FencedExecutor(ToolExecutor delegate) {
      this.delegate = delegate;
    }

    @Override
    public String execute(ToolExecutionRequest request, Object memoryId) {
      return executeWithContext(request, InvocationContext.builder().chatMemoryId(memoryId).build())
          .resultText();
    }

    @Override
    public ToolExecutionResult executeWithContext(
        ToolExecutionRequest request, InvocationContext context) {
      return core.call(
          context,
          request.name(),
          request.arguments(),
          call -> {
            if (context != null && context.invocationParameters() != null) {
              context.invocationParameters().put(TOKEN_PARAMETER, call.token());
            }
            return delegate.executeWithContext(request, context);
          },
          result -> result == null ? null : result.resultText(),
          journaled ->
              ToolExecutionResult.builder().resultText(journaled == null ? "" : journaled).build(),
          message -> ToolExecutionResult.builder().isError(true).resultText(message).build());
    }
  }

  /**
   * Options of a {@link LangChain4jToolFence}: those of every framework fence ({@link
   * FrameworkToolFence.Builder}; the session resolver is given the invocation, usually read through
   * {@code context.chatMemoryId()}) and the error handler's fallback. Not thread-safe.
   */
  public static final class Builder extends FrameworkToolFence.Builder<Builder, InvocationContext> {
    private ToolExecutionErrorHandler fallbackErrors =
        (error, context) ->
            ToolErrorHandlerResult.text(
                error == null
                    ? "unknown error"
                    : error.getMessage() == null || error.getMessage().isBlank()
                        ? error.getClass().getName()
                        : error.getMessage());

    private Builder(AgentToolFence fence) {
      super(fence);
    }

    private FrameworkToolFence<InvocationContext> fenceCore() {
      return core(CARRIER, context -> context);
    }

    /**
     * What {@link LangChain4jToolFence#errorHandler()} does with tool failures other than a
     * refusal. Default: the error's message becomes the tool result, as in LangChain4j.
     *
     * @param fallback the handler
     * @return this builder
     */
    public Builder errorHandler(ToolExecutionErrorHandler fallback) {
      if (fallback == null) {
        throw new IllegalArgumentException("fallback must not be null");
      }
      this.fallbackErrors = fallback;
      return this;
    }

    /**
     * Builds the fence.
     *
     * @return the fence
     */
    public LangChain4jToolFence build() {
      return new LangChain4jToolFence(this);
    }
  }
}
