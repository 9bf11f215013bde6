package io.leasehold.fencing;

import io.leasehold.fencing.internal.Arguments;
import java.time.Clock;
import java.util.function.Supplier;

/**
 * The shared options of one guard, as its {@link GuardBuilder} set them, and the steps every guard
 * takes with them: verify a presented token, report each decision to the listener, and check a mark
 * reset against the admin policy. Written once here so that every guard verifies, reports and
 * checks the same way; a guard runs its calls through a {@link GuardPipeline}, which verifies and
 * reports with these.
 *
 * @param resource the guard's resource kind, as its listener hears it ({@code "file"}); never a
 *     key, a path or a run
 * @param verifier how tokens are verified
 * @param listener who hears each decision
 * @param adminPolicy who may reset marks
 * @param clock dates the records the guard keeps itself
 */
public record GuardOptions(
    String resource,
    TokenVerifier verifier,
    GuardListener listener,
    AdminPolicy adminPolicy,
    Clock clock) {
  /**
   * Checks the components.
   *
   * @throws IllegalArgumentException if a component is null or the resource kind is blank
   */
  public GuardOptions {
    if (resource == null || resource.isBlank()) {
      throw new IllegalArgumentException("resource must not be blank");
    }
    if (verifier == null || listener == null || adminPolicy == null || clock == null) {
      throw new IllegalArgumentException("verifier, listener, adminPolicy and clock are required");
    }
  }

  /**
   * What a guard calls first: asks {@code fenced} for its token (so a lease known lost refuses
   * here, CONTRACT C6), then verifies it (C15). Reports nothing: {@link GuardPipeline} calls it and
   * reports a refusal itself, with the token as presented (so the listener's refusal carries its
   * key and fence, as {@link Refusal#of(Throwable, FencingToken)} gives them).
   *
   * @param fenced the presenter
   * @return the verified token
   * @throws IllegalArgumentException if {@code fenced} or its token is null
   * @throws LeaseLostException if the presenter knows its lease is lost
   * @throws TokenVerificationException if the token fails verification
   */
  public FencingToken verify(Fenced fenced) {
    FencingToken token = Fenced.present(fenced);
    verifier.verify(token);
    return token;
  }

  /**
   * Runs a guard operation (its admission and its write) and reports the decision its outcome
   * shows: a normal return is {@link GuardListener.Decision#ADMITTED}; an exception is the decision
   * {@link #decisionOf} gives it; an {@link IllegalArgumentException} is the caller's error and is
   * not reported. What the listener throws never changes the outcome ({@link #report}).
   *
   * @param operation the admission and the write
   * @param <T> the result
   * @return what the operation returned
   */
  public <T> T observe(Supplier<T> operation) {
    T result;
    try {
      result = operation.get();
    } catch (IllegalArgumentException e) {
      throw e;
    } catch (RuntimeException | Error e) {
      reportOutcome(e, null);
      throw e;
    }
    report(GuardListener.Decision.ADMITTED, null);
    return result;
  }

  /**
   * The decision an exception from a guard operation stands for: the one a {@link
   * GuardListener.Classified} exception names, {@link GuardListener.Decision#STALE}, {@link
   * GuardListener.Decision#UNVERIFIED} or {@link GuardListener.Decision#LEASE_LOST} for those
   * refusals, and {@link GuardListener.Decision#FAIL_CLOSED} for anything else.
   *
   * @param e what the operation threw
   * @return the decision
   */
  public static GuardListener.Decision decisionOf(Throwable e) {
    if (e instanceof GuardListener.Classified c) {
      return c.decision();
    }
    if (e instanceof StaleFenceException) {
      return GuardListener.Decision.STALE;
    }
    if (e instanceof TokenVerificationException) {
      return GuardListener.Decision.UNVERIFIED;
    }
    if (e instanceof LeaseLostException) {
      return GuardListener.Decision.LEASE_LOST;
    }
    return GuardListener.Decision.FAIL_CLOSED;
  }

  /**
   * Tells the listener the decision an exception stands for and, when it is a refusal, why, in the
   * one refusal vocabulary ({@link GuardListener#refused}): the refusal of the token as it was
   * read, or, when none was, of the token the exception names.
   *
   * @param e what the operation threw; the listener's own failures are added to it as suppressed
   * @param read the token as presented, verified or not, or null if none was read
   */
  void reportOutcome(Throwable e, FencingToken read) {
    GuardListener.Decision decision = decisionOf(e);
    report(decision, e);
    if (decision == GuardListener.Decision.ADMITTED) {
      return;
    }
    try {
      listener.refused(resource, read == null ? Refusal.of(e) : Refusal.of(e, read));
    } catch (Throwable listenerFailure) {
      listenerFailed(listenerFailure, e);
    }
  }

  /**
   * Tells the listener, logging what it throws: a broken listener never changes what the guard
   * decided.
   *
   * @param decision the decision
   */
  public void report(GuardListener.Decision decision) {
    report(decision, null);
  }

  /**
   * Tells the listener the decision of an outcome. Whatever the listener throws is caught, {@link
   * Error}s and even {@link VirtualMachineError}s included: a {@link StackOverflowError} unwinds
   * only the listener's own frames, and an {@link OutOfMemoryError} rethrown here would turn a done
   * write into what looks like a failure, so that a caller retries a write that happened; the JVM's
   * next allocation reports a real shortage. The listener's throwable is added as suppressed to the
   * exception the guard throws anyway, or logged as a warning when the call returns.
   *
   * @param decision the decision
   * @param outcome the exception the guard throws, or null if the call returns
   */
  void report(GuardListener.Decision decision, Throwable outcome) {
    try {
      listener.decided(resource, decision);
    } catch (Throwable listenerFailure) {
      listenerFailed(listenerFailure, outcome);
    }
  }

  private void listenerFailed(Throwable listenerFailure, Throwable outcome) {
    if (outcome != null && outcome != listenerFailure) {
      outcome.addSuppressed(listenerFailure);
      return;
    }
    System.getLogger(GuardListener.class.getName())
        .log(
            System.Logger.Level.WARNING,
            "guard listener " + listener + " threw; the guard's decision stands",
            listenerFailure);
  }

  /**
   * What every guard's {@code resetMark} checks before anything else: the arguments, then the
   * operator against the admin policy. Nothing has changed when it throws.
   *
   * @param key the key
   * @param newMark the new mark, 0 or more
   * @param operator who asks
   * @param reason why
   * @throws IllegalArgumentException if an argument is invalid
   * @throws AdminDeniedException if the policy refuses the operator
   */
  public void checkReset(LeaseKey key, long newMark, String operator, String reason) {
    Arguments.required(key, "key");
    MarkReset.checkMark("newMark", newMark);
    MarkReset.checkText("operator", operator);
    MarkReset.checkText("reason", reason);
    if (!adminPolicy.mayResetMark(operator, key)) {
      throw new AdminDeniedException(operator, "reset the mark of " + key);
    }
  }
}
