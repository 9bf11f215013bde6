package io.leasehold.fencing;

/**
 * What a guard decided about each write it was asked to admit, for metrics (see {@code
 * leasehold-micrometer}'s {@code LeaseholdMetrics.guardListener}) and logs. Give one to a guard's
 * builder ({@code listener(...)}). It is called on the writer's thread, once the guard's step has
 * ended (sometimes while the guard holds the key's lock): keep it quick. Whatever it throws, {@link
 * Error}s included (an {@link AssertionError}, a {@link StackOverflowError}, even an {@link
 * OutOfMemoryError}), never changes what the guard decided nor the call's outcome: a done write
 * returns normally and the listener's throwable is logged; a refused or failed write throws its own
 * exception with the listener's throwable added as suppressed ({@link GuardOptions#report}).
 *
 * <p>A call with a bad argument (a null path, an unknown tool) is the caller's error, not a
 * decision, and is not reported.
 *
 * <p>An exception the effect throws once the token was admitted is reported the same way by every
 * guard, by whether the write may have happened: {@link Decision#ADMITTED} where the effect ran and
 * cannot be taken back (the in-memory guard's write, whose mark stays raised; the tool executor's
 * tool, which its journal records as run), {@link Decision#FAIL_CLOSED} where the guard's unit of
 * work failed and nothing was written (the JDBC writer's work rolled back, the file store's write
 * that failed before its rename). An {@link IllegalArgumentException} from the effect counts as any
 * other exception there; only the guard's own checks of the call's arguments are the caller's
 * error.
 */
@FunctionalInterface
public interface GuardListener {
  /** A guard's decision about one write. */
  enum Decision {
    /**
     * Admitted: the write ran, and the admission stands even if the write then threw (the in-memory
     * guard's write; a tool that ran and threw).
     */
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
     * C16): its state is damaged, missing or unreadable, the database or file system failed, or the
     * work failed (threw anything, an {@link IllegalArgumentException} too) before it committed.
     * Nothing was written.
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
   * A guard refused a write, and says why in the one refusal vocabulary ({@link Refusal},
   * docs/refusal-spec.md): the key, the presented fence, the highest fence seen and what the run
   * does next. The key and fence are there whenever the token could be read (a forged, expired or
   * out-of-scope token too), the validity window for an expired signed token: the same refusal an
   * agent's {@code RunStop} carries for the same token. Heard after {@link #decided} with the
   * refusal's {@link Refusal.Reason#decision()}. The default ignores it, so listeners written
   * before it keep working.
   *
   * @param resource the kind of resource, as in {@link #decided}
   * @param refusal why the write was refused; it may name the key, which {@code decided} never
   *     does, so keep it out of metric labels
   */
  default void refused(String resource, Refusal refusal) {}

  /**
   * An exception that names the decision it stands for, when that is not what its type alone would
   * suggest: a tool that threw after it was admitted ran all the same ({@link Decision#ADMITTED}),
   * a duplicate call is a refusal of its own ({@link Decision#DUPLICATE}). {@link
   * GuardOptions#decisionOf} reads it.
   */
  interface Classified {
    /**
     * The decision.
     *
     * @return what the guard decided
     */
    Decision decision();
  }
}
