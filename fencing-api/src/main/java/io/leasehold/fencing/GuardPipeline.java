package io.leasehold.fencing;

import io.leasehold.fencing.internal.Arguments;

/**
 * The steps every guard takes for each call it is asked to admit, written once, in this order:
 *
 * <ol>
 *   <li><b>present</b>: the presenter is asked for its token ({@link Fenced#present}), so a lease
 *       known lost is refused here, before anything else (CONTRACT C6);
 *   <li><b>verify</b>: the guard's {@link TokenVerifier} checks the token (C15);
 *   <li><b>scope</b>: the guard's {@link Scope} checks that the token's key may act on the call's
 *       argument (a path, a tool call; C19);
 *   <li><b>step</b>: the guard's own {@link Step} opens its unit of work (a lock, a transaction)
 *       and, inside it, admits the token through its mark store and runs its effect, in the order
 *       it needs: a database writer may run the work first and send the admission with the commit;
 *   <li><b>report</b>: once the step has ended, the listener hears the decision the outcome shows
 *       ({@link GuardOptions#observe}): {@link GuardListener.Decision#ADMITTED} for a normal return
 *       or a step whose admission stands ({@link Call#admitted}), the one {@link
 *       GuardOptions#decisionOf} gives an exception otherwise, and for a refusal the {@link
 *       Refusal} of the token as it was read (key and fence even when it failed verification, the
 *       window when it expired). An {@link IllegalArgumentException} is the caller's error and is
 *       not reported, unless the step said its effect had started ({@link Call#effectRuns}). A
 *       listener that throws, {@link Error}s included, never changes the decision nor the outcome
 *       ({@link GuardOptions#report}).
 * </ol>
 *
 * A guard is then its effect, its mark store ({@link io.leasehold.fencing.mark.MarkStore}) and its
 * scope; each public operation checks its own arguments (an {@link IllegalArgumentException},
 * before the token is asked for) and hands the rest to {@link #run} or {@link #runForKey}:
 *
 * <pre>{@code
 * public Receipt write(Fenced fenced, String path, byte[] content) {
 *   String relative = checkPath(path);                       // the caller's error: not reported
 *   return pipeline.run(fenced, relative, call ->            // present, verify, scope
 *       lock.call(() -> {                                    // the guard's unit of work
 *         Admission admission = marks.admit(unit, call.token());
 *         return writeFile(relative, content, admission);    // the effect
 *       }));                                                 // reported: ADMITTED or the refusal
 * }
 * }</pre>
 *
 * <p>Immutable and thread-safe; each call has its own {@link Call}.
 *
 * @param <A> the argument a guard's scope judges ({@code String} for a path); {@code Void} for a
 *     guard without one
 */
public final class GuardPipeline<A> {
  private final GuardOptions options;
  private final Scope<? super A> scope;

  /**
   * A guard's scope: whether a verified token's key may act on a call's argument (CONTRACT C19). It
   * may also reject the argument itself, as the caller's error, where that can only be told once
   * the token is verified.
   *
   * @param <A> the argument
   */
  @FunctionalInterface
  public interface Scope<A> {
    /**
     * Checks a call.
     *
     * @param token the verified token
     * @param argument the call's argument
     * @throws TokenVerificationException with reason {@link
     *     TokenVerificationException.Reason#OUT_OF_SCOPE} if the key may not act on it, naming both
     *     keys; nothing changed
     * @throws IllegalArgumentException if the argument is not acceptable
     */
    void check(FencingToken token, A argument);

    /**
     * The scope of a guard whose every call is the key's own.
     *
     * @param <A> the argument
     * @return a scope that permits everything
     */
    static <A> Scope<A> everything() {
      return (token, argument) -> {};
    }
  }

  /**
   * A guard's own part of a call: its unit of work, its admission and its effect.
   *
   * @param <A> the argument
   * @param <T> the result
   */
  @FunctionalInterface
  public interface Step<A, T> {
    /**
     * Admits the call's token and runs the effect.
     *
     * @param call the verified, scoped call
     * @return the result
     * @throws StaleFenceException if the mark store refuses the fence; reported as {@link
     *     GuardListener.Decision#STALE}
     */
    T run(Call<A> call);
  }

  /**
   * One call going through the pipeline: its verified and scoped token, its argument, and a way for
   * the step to report the admission as soon as it is made.
   *
   * @param <A> the argument
   */
  public static final class Call<A> {
    private final Fenced fenced;
    private final A argument;

    /** Set once verified and scoped, before the step sees the call. */
    private FencingToken token;

    /** The step said its admission stands whatever its effect does. */
    private boolean admitted;

    /** The step said the caller's effect started. */
    private boolean effectRuns;

    private Call(Fenced fenced, A argument) {
      this.fenced = fenced;
      this.argument = argument;
    }

    /**
     * The token, presented, verified and in scope.
     *
     * @return the token
     */
    public FencingToken token() {
      return token;
    }

    /**
     * The argument the scope checked.
     *
     * @return the argument, or null for a call of {@link #runForKey}
     */
    public A argument() {
      return argument;
    }

    /**
     * Asks the presenter for its token again, for a step that does work of its own between the
     * scope and the admission: a lease lost meanwhile is refused here (CONTRACT C6).
     *
     * @throws LeaseLostException if the presenter knows its lease is lost
     */
    public void presentAgain() {
      Fenced.present(fenced);
    }

    /**
     * Says the admission stands whatever the effect then does (the in-memory guard raises the mark
     * before its write, and a failed write does not lower it): the listener hears {@link
     * GuardListener.Decision#ADMITTED} once the step ends, whether it returns or throws. It is
     * heard after the effect, so a listener that throws cannot come between the admission and the
     * write. A step that does not call it is reported by its outcome.
     */
    public void admitted() {
      admitted = true;
      effectRuns = true;
    }

    /**
     * Says the caller's effect (a JDBC writer's work) starts now: an exception it throws, an {@link
     * IllegalArgumentException} included, is the effect failing and is reported (by {@link
     * GuardOptions#decisionOf}, {@link GuardListener.Decision#FAIL_CLOSED} for a rolled-back
     * write), no longer the caller's argument error.
     */
    public void effectRuns() {
      effectRuns = true;
    }
  }

  /**
   * A pipeline for a guard's options and scope.
   *
   * @param options the guard's options (verifier, listener)
   * @param scope the guard's scope
   * @throws IllegalArgumentException if an argument is null
   */
  public GuardPipeline(GuardOptions options, Scope<? super A> scope) {
    this.options = Arguments.required(options, "options");
    this.scope = Arguments.required(scope, "scope");
  }

  /**
   * A pipeline for a guard whose every call is the key's own.
   *
   * @param options the guard's options
   * @return the pipeline
   */
  public static GuardPipeline<Void> unscoped(GuardOptions options) {
    return new GuardPipeline<>(options, Scope.everything());
  }

  /**
   * The options the pipeline verifies and reports with.
   *
   * @return the options
   */
  public GuardOptions options() {
    return options;
  }

  /**
   * Runs a call on an argument through every step: present, verify, scope, the guard's step,
   * report.
   *
   * @param fenced the presenter
   * @param argument what the scope judges
   * @param step the guard's unit of work, admission and effect
   * @param <T> the result
   * @return what the step returned
   * @throws IllegalArgumentException if {@code fenced} or its token is null, or the scope or the
   *     step rejects an argument; not reported (unless the step said its effect runs, {@link
   *     Call#effectRuns})
   * @throws LeaseLostException if the presenter knows its lease is lost
   * @throws TokenVerificationException if the token fails verification or is out of scope
   * @throws StaleFenceException if the guard's mark store refuses the fence
   */
  public <T> T run(Fenced fenced, A argument, Step<A, T> step) {
    return call(fenced, argument, true, step);
  }

  /**
   * Runs a call that acts on the key as a whole (an admission without an effect, a run's start)
   * through every step but the scope: the key's own mark is in every scope.
   *
   * @param fenced the presenter
   * @param step the guard's unit of work, admission and effect
   * @param <T> the result
   * @return what the step returned
   * @throws IllegalArgumentException if {@code fenced} or its token is null; not reported
   * @throws LeaseLostException if the presenter knows its lease is lost
   * @throws TokenVerificationException if the token fails verification
   * @throws StaleFenceException if the guard's mark store refuses the fence
   */
  public <T> T runForKey(Fenced fenced, Step<A, T> step) {
    return call(fenced, null, false, step);
  }

  /**
   * Presents and verifies a token without a decision to report: for a guard's reads on behalf of a
   * run (the tool executor's calls in doubt).
   *
   * @param fenced the presenter
   * @return the verified token
   * @throws IllegalArgumentException if {@code fenced} or its token is null
   * @throws LeaseLostException if the presenter knows its lease is lost
   * @throws TokenVerificationException if the token fails verification
   */
  public FencingToken verified(Fenced fenced) {
    return options.verify(fenced);
  }

  private <T> T call(Fenced fenced, A argument, boolean scoped, Step<A, T> step) {
    Arguments.required(step, "step");
    Call<A> call = new Call<>(fenced, argument);
    // GuardOptions.observe, written out: no lambda per call on the in-memory guard's hot path.
    FencingToken read = null;
    T result;
    try {
      read = Fenced.present(fenced);
      options.verifier().verify(read);
      if (scoped) {
        scope.check(read, argument);
      }
      call.token = read;
      result = step.run(call);
    } catch (RuntimeException | Error e) {
      if (call.admitted) {
        options.report(GuardListener.Decision.ADMITTED, e);
      } else if (!(e instanceof IllegalArgumentException) || call.effectRuns) {
        // The refusal names the token as read, verified or not (docs/refusal-spec.md).
        options.reportOutcome(e, read);
      }
      throw e;
    }
    options.report(GuardListener.Decision.ADMITTED, null);
    return result;
  }
}
