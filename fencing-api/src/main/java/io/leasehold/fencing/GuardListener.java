package io.leasehold.fencing;

import java.util.function.Supplier;

/**
 * What a guard decided about each write it was asked to admit, for metrics (see {@code
 * leasehold-micrometer}'s {@code LeaseholdMetrics.guardListener}) and logs. Give one to a guard's
 * builder ({@code listener(...)}). It is called on the writer's thread, once the decision is
 * made (sometimes while the guard holds the key's lock): keep it quick. An exception it throws is logged and ignored, so a
 * broken listener never changes what the guard decided.
 *
 * <p>A call with a bad argument (a null path, an unknown tool) is the caller's error, not a
 * decision, and is not reported.
 */
@FunctionalInterface
public interface GuardListener {
  /** A guard's decision about one write. */
  enum Decision {
    /** Admitted: the write ran (for a tool, the tool ran, even if it then threw). */
    ADMITTED,
    /** Refused: a newer run has been admitted for the key (CONTRACT C9). */
    STALE,
    /** Refused: the token failed verification (CONTRACT C15). */
    UNVERIFIED,
    /** Refused locally: the presenting lease knows it is lost. */
    LEASE_LOST,
    /** Refused: the same run's call with the same idempotency key is in flight or done. */
    DUPLICATE,
    /**
     * Refused because the guard could not prove the write safe or could not complete it (CONTRACT
     * C16): its state is damaged, missing or unreadable, the database or file system failed, or
     * the work failed before it committed. Nothing was written.
     */
    FAIL_CLOSED
  }

  /** A listener that ignores everything; the guards' default. */
  GuardListener NONE = (resource, decision) -> {};

  /**
   * A guard decided.
   *
   * @param resource the kind of resource: {@code "memory"}, {@code "file"}, {@code "tool"} or
   *     {@code "jdbc"}; never a key, a path or a run
   * @param decision what it decided
   */
  void decided(String resource, Decision decision);

  /**
   * Runs a guard's admission-and-write and reports the decision its outcome shows: normal return
   * is {@link Decision#ADMITTED}; a {@link StaleFenceException}, {@link
   * TokenVerificationException} or {@link LeaseLostException} is that refusal; an {@link
   * IllegalArgumentException} is not reported; anything else is {@link Decision#FAIL_CLOSED}.
   * For the guards' own use; a guard with finer knowledge (a tool that threw after admission)
   * reports through {@link #report} instead.
   *
   * @param listener the listener
   * @param resource the kind of resource
   * @param write the admission and the write
   * @param <T> the write's result
   * @return what the write returned
   */
  static <T> T observe(GuardListener listener, String resource, Supplier<T> write) {
    T result;
    try {
      result = write.get();
    } catch (IllegalArgumentException e) {
      throw e;
    } catch (RuntimeException | Error e) {
      report(listener, resource, refusalOf(e));
      throw e;
    }
    report(listener, resource, Decision.ADMITTED);
    return result;
  }

  /**
   * The refusal an exception from a guard stands for.
   *
   * @param e what the guard threw
   * @return {@link Decision#STALE}, {@link Decision#UNVERIFIED}, {@link Decision#LEASE_LOST} or
   *     {@link Decision#FAIL_CLOSED}
   */
  static Decision refusalOf(Throwable e) {
    if (e instanceof StaleFenceException) {
      return Decision.STALE;
    }
    if (e instanceof TokenVerificationException) {
      return Decision.UNVERIFIED;
    }
    if (e instanceof LeaseLostException) {
      return Decision.LEASE_LOST;
    }
    return Decision.FAIL_CLOSED;
  }

  /**
   * Calls a listener, logging and ignoring what it throws.
   *
   * @param listener the listener
   * @param resource the kind of resource
   * @param decision the decision
   */
  static void report(GuardListener listener, String resource, Decision decision) {
    try {
      listener.decided(resource, decision);
    } catch (RuntimeException e) {
      System.getLogger(GuardListener.class.getName())
          .log(System.Logger.Level.WARNING, "guard listener " + listener + " threw; ignored", e);
    }
  }
}
