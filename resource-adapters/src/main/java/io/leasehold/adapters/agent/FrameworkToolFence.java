package io.leasehold.adapters.agent;

import io.leasehold.fencing.Fenced;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.LeaseLostException;
import io.leasehold.fencing.internal.Arguments;
import java.util.function.Function;

/**
 * The part of an agent-framework fence that does not depend on the framework: which run a tool call
 * belongs to, and what a refused call does. The LangChain4j, Spring AI and Google ADK fences are
 * thin adapters over it: each says how its framework carries a lease with a call (a {@link
 * Carrier}) and decorates the framework's own tool type; this class does the rest the same way for
 * all of them.
 *
 * <h2>Which run a call belongs to</h2>
 *
 * The lease the call carries wins. Without one, the session resolver maps the call's context to a
 * lease key, and the run registered for that session in {@link SessionLeases} is used. When both
 * are present they must name the same session. A call that can be tied to no run throws {@link
 * UnresolvedSessionException}; the tool does not run.
 *
 * <h2>A refused call</h2>
 *
 * With {@code endRunOnRefusal} (the default) a refusal throws {@link RunStoppedException};
 * otherwise the framework's tool result is made from {@link RunStop#messageForModel()}, so the
 * model reads that its run must stop, and every later call of the run is refused locally.
 *
 * <p>Thread-safe.
 *
 * @param <C> the framework's per-call context (an invocation context, a tool context)
 */
public final class FrameworkToolFence<C> {
  /**
   * How a framework carries a run's lease with a tool call, and how its users pass one: the words
   * go into the errors that tell them.
   *
   * @param <C> the framework's per-call context
   */
  public interface Carrier<C> {
    /**
     * What the call carries where the lease belongs, or null.
     *
     * @param context the call's context, possibly null
     * @return the carried object (not necessarily a lease), or null
     */
    Object carried(C context);

    /**
     * Where a lease is carried, for messages ({@code "invocation parameter leasehold.lease"}).
     *
     * @return the words
     */
    String where();

    /**
     * How to pass a lease with a call, for messages ({@code "pass X.parameters(lease)"}).
     *
     * @return the words
     */
    String howToPass();

    /**
     * How to make the resolver find the session, for messages.
     *
     * @return the words
     */
    String howToResolve();

    /**
     * The call's conversation, for messages. Default {@code "the call"}.
     *
     * @param context the call's context, possibly null
     * @return the words
     */
    default String describe(C context) {
      return "the call";
    }

    /**
     * A carrier from its parts.
     *
     * @param carried reads what a call carries where the lease belongs ({@link #carried})
     * @param describe names a call's conversation ({@link #describe})
     * @param where where a lease is carried ({@link #where})
     * @param howToPass how to pass a lease with a call ({@link #howToPass})
     * @param howToResolve how to make the resolver find the session ({@link #howToResolve})
     * @param <C> the framework's per-call context
     * @return the carrier
     */
    static <C> Carrier<C> of(
        Function<C, Object> carried,
        Function<C, String> describe,
        String where,
        String howToPass,
        String howToResolve) {
      return new CarrierOf<>(
          Arguments.required(carried, "carried"),
          Arguments.required(describe, "describe"),
          where,
          howToPass,
          howToResolve);
    }
  }

  private record CarrierOf<C>(
      Function<C, Object> reader,
      Function<C, String> describer,
      String where,
      String howToPass,
      String howToResolve)
      implements Carrier<C> {
    @Override
    public Object carried(C context) {
      return reader.apply(context);
    }

    @Override
    public String describe(C context) {
      return describer.apply(context);
    }
  }

  private final AgentToolFence fence;
  private final Carrier<C> carrier;
  private final Function<C, LeaseKey> resolver;
  private final SessionLeases sessions;
  private final boolean endRunOnRefusal;

  /**
   * A fence core.
   *
   * @param fence admits and journals the calls
   * @param carrier how the framework carries a lease
   * @param resolver maps a call's context to its session when it carries no lease, or null
   * @param sessions the live runs of this process, required with a resolver
   * @param endRunOnRefusal whether a refusal throws {@link RunStoppedException}
   * @throws IllegalArgumentException if the fence or the carrier is null, or a resolver comes
   *     without sessions
   */
  public FrameworkToolFence(
      AgentToolFence fence,
      Carrier<C> carrier,
      Function<C, LeaseKey> resolver,
      SessionLeases sessions,
      boolean endRunOnRefusal) {
    if (fence == null || carrier == null) {
      throw new IllegalArgumentException("fence and carrier must not be null");
    }
    if ((resolver == null) != (sessions == null)) {
      throw new IllegalArgumentException(
          "a session resolver needs the SessionLeases it looks runs up in");
    }
    this.fence = fence;
    this.carrier = carrier;
    this.resolver = resolver;
    this.sessions = sessions;
    this.endRunOnRefusal = endRunOnRefusal;
  }

  /**
   * Admits a call and runs the framework's tool, or refuses it.
   *
   * @param context the call's context, possibly null
   * @param toolName the tool's name
   * @param argumentsJson the call's arguments as the model wrote them
   * @param body the framework's tool, run only once the call is admitted
   * @param journaled what the journal records of the tool's result
   * @param replayResult the framework's tool result for a call answered from the journal (a retry
   *     with the idempotency key of a finished call), from the journaled result text
   * @param refusalResult the framework's tool result for a refusal, from the message for the model
   *     (used without {@code endRunOnRefusal})
   * @param <R> the framework's tool result
   * @return what the tool returned, or the refusal's result
   * @throws UnresolvedSessionException if the call can be tied to no run; the tool did not run
   * @throws RunStoppedException if the call was refused and {@code endRunOnRefusal} is set
   * @throws RuntimeException what the tool threw, unchanged
   */
  public <R> R call(
      C context,
      String toolName,
      String argumentsJson,
      AgentToolBody<R> body,
      Function<? super R, String> journaled,
      Function<String, R> replayResult,
      Function<String, R> refusalResult) {
    AgentToolOutcome<R> outcome =
        fence.call(runOf(context), toolName, argumentsJson, body, journaled);
    if (outcome instanceof AgentToolOutcome.Ran<R> ran) {
      return ran.value();
    }
    if (outcome instanceof AgentToolOutcome.Replayed<R> replayed) {
      return replayResult.apply(replayed.journaledResult());
    }
    RunStop stop = ((AgentToolOutcome.Refused<R>) outcome).stop();
    if (endRunOnRefusal) {
      throw new RunStoppedException(stop);
    }
    return refusalResult.apply(stop.messageForModel());
  }

  /**
   * The run a call belongs to.
   *
   * @param context the call's context, possibly null
   * @return the run's lease
   * @throws UnresolvedSessionException if the call can be tied to no run
   */
  public Fenced runOf(C context) {
    Object passed = carrier.carried(context);
    if (passed != null && !(passed instanceof Fenced)) {
      throw new UnresolvedSessionException(
          carrier.where()
              + " holds a "
              + passed.getClass().getName()
              + ", not a lease; "
              + carrier.howToPass(),
          null);
    }
    if (resolver == null) {
      if (passed == null) {
        throw new UnresolvedSessionException(
            "this tool call carries no lease: "
                + carrier.howToPass()
                + ", or configure"
                + " sessions(resolver, sessionLeases) on the fence's builder",
            null);
      }
      return (Fenced) passed;
    }
    LeaseKey key = resolve(context);
    if (passed != null) {
      Fenced run = (Fenced) passed;
      checkSameSession(run, key);
      return run;
    }
    return sessions
        .find(key)
        .orElseThrow(
            () ->
                new UnresolvedSessionException(
                    "no live run of session "
                        + key
                        + " is registered in this process: register the"
                        + " run's lease with SessionLeases.register(lease) when it starts",
                    null));
  }

  private LeaseKey resolve(C context) {
    LeaseKey key;
    try {
      key = resolver.apply(context);
    } catch (RuntimeException e) {
      throw new UnresolvedSessionException(
          "the session resolver could not map "
              + carrier.describe(context)
              + " to a session: "
              + e.getMessage(),
          e);
    }
    if (key == null) {
      throw new UnresolvedSessionException(
          "the session resolver mapped "
              + carrier.describe(context)
              + " to no session; it must return a LeaseKey ("
              + carrier.howToResolve()
              + ")",
          null);
    }
    return key;
  }

  private void checkSameSession(Fenced run, LeaseKey key) {
    FencingToken token;
    try {
      token = run.token();
    } catch (LeaseLostException e) {
      return; // the fence refuses it anyway, and says why
    }
    if (token != null && !token.key().equals(key)) {
      throw new UnresolvedSessionException(
          "the lease in the "
              + carrier.where()
              + " is for session "
              + token.key()
              + " but the conversation maps to session "
              + key
              + "; pass the lease of this conversation's run",
          null);
    }
  }

  /**
   * The options every framework fence's builder shares, for the LangChain4j and Spring AI builders
   * to extend. Not thread-safe.
   *
   * @param <S> the subclass, returned by every setter
   * @param <C> the framework's per-call context
   */
  public abstract static class Builder<S extends Builder<S, C>, C> {
    private final AgentToolFence fence;
    private Function<C, LeaseKey> resolver;
    private SessionLeases sessions;
    private boolean endRunOnRefusal = true;

    /**
     * For subclasses.
     *
     * @param fence admits and journals the calls
     * @throws IllegalArgumentException if null
     */
    protected Builder(AgentToolFence fence) {
      this.fence = Arguments.required(fence, "fence");
    }

    /**
     * This builder as its own type; a subclass that names itself as {@code S} need not override it.
     *
     * @return {@code this}
     */
    @SuppressWarnings("unchecked") // S is the subclass, by the bound every subclass declares
    protected S self() {
      return (S) this;
    }

    /**
     * Finds a call's run by session when the call carries no lease: the resolver maps the call's
     * context to a lease key, and the session's run registered in {@code sessions} is used.
     *
     * @param resolver maps a call's context to its session; may throw or return null when it cannot
     * @param sessions the live runs of this process
     * @return this builder
     */
    public S sessions(Function<C, LeaseKey> resolver, SessionLeases sessions) {
      if (resolver == null || sessions == null) {
        throw new IllegalArgumentException("resolver and sessions must not be null");
      }
      this.resolver = resolver;
      this.sessions = sessions;
      return self();
    }

    /**
     * Whether a refused call throws {@link RunStoppedException} (true, the default) or returns the
     * refusal as the tool's result for the model (false).
     *
     * @param end true to throw
     * @return this builder
     */
    public S endRunOnRefusal(boolean end) {
      this.endRunOnRefusal = end;
      return self();
    }

    /**
     * The core these options describe.
     *
     * @param carrier how the framework carries a lease
     * @param forResolver what the resolver is given for a call's context (a framework whose context
     *     may be null gives an empty one)
     * @return the core
     */
    protected final FrameworkToolFence<C> core(
        Carrier<C> carrier, java.util.function.UnaryOperator<C> forResolver) {
      Function<C, LeaseKey> r = resolver;
      return new FrameworkToolFence<>(
          fence,
          carrier,
          r == null ? null : context -> r.apply(forResolver.apply(context)),
          sessions,
          endRunOnRefusal);
    }
  }
}
