package io.leasehold.fencing;

/**
 * The guard contract (CONTRACT C9): per lease key, a guard remembers the highest fence it has
 * admitted (its high-water mark) and admits a token if and only if the token's fence is at least
 * that mark, raising the mark to it, as one atomic step.
 *
 * <p>Equal fences are admitted (the same run writing again); lower fences are refused with a {@link
 * StaleFenceException} that names the presented and the highest fence. A resource gets the full
 * guarantee only when the admission and its own write are one step: see {@link
 * InMemoryFenceGuard#runFenced} for a single-process resource, and the adapters in {@code
 * resource-adapters} for files, tools and database tables.
 *
 * <h2>For implementers</h2>
 *
 * <p>A guard is built with an explicit {@link TokenVerifier} (CONTRACT C15) and runs every call
 * through a {@link GuardPipeline}, which presents and verifies the token first, so an unverifiable
 * token is refused before the mark is looked at, then checks the guard's scope, runs the guard's
 * step (its admission through its {@link io.leasehold.fencing.mark.MarkStore} and its effect) and
 * reports the decision. A guard fails closed (CONTRACT C16): when it cannot prove that a write is
 * safe (its state is damaged, missing or unreadable, or anything throws), it refuses and leaves the
 * mark as it was, with an error that says how to repair.
 *
 * <p>The options every guard shares (verification, listener, admin policy, clock) come from {@link
 * GuardBuilder}, which a guard's builder extends, as {@link GuardOptions}, from which the pipeline
 * is made: a new guard gets them, and the same decision reporting, by using the three. A guard's
 * marks can be reset by an operator ({@link ResettableMarks}); the guard testkit checks all of this
 * against this interface.
 *
 * <p>Implementations are thread-safe.
 */
public interface FenceGuard extends ResettableMarks {
  /**
   * Admits a token or refuses it.
   *
   * @param fenced the token, or a lease handle that may refuse locally first
   * @return the admission
   * @throws StaleFenceException if the fence is below the key's high-water mark
   * @throws TokenVerificationException if the token fails the guard's verification; nothing changed
   * @throws LeaseLostException if the presenter knows its lease is lost
   * @throws IllegalArgumentException if {@code fenced} is null
   */
  Admission admit(Fenced fenced);
}
