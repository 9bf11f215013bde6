package io.leasehold.lease;

import io.leasehold.fencing.FencingToken;
import java.util.Optional;

/**
 * How {@link LeaseStore#runExclusive} ended.
 *
 * @param <T> the work's result
 */
public sealed interface RunOutcome<T> {
  /**
   * The work ran to completion while the lease was held, and the lease was released.
   *
   * @param value what the work returned
   * @param token the token the work ran under
   * @param <T> the work's result
   */
  record Completed<T>(T value, FencingToken token) implements RunOutcome<T> {}

  /**
   * The work never started: the lease was not acquired.
   *
   * @param result the acquire answer ({@link AcquireResult.Busy} or {@link AcquireResult.TooLate})
   * @param <T> the work's result
   */
  record NotAcquired<T>(AcquireResult result) implements RunOutcome<T> {}

  /**
   * The lease was lost while the work ran; the work was interrupted and whatever it produced must
   * not be trusted as exclusive.
   *
   * @param loss why the lease was lost
   * @param failure what the work threw after the loss, if anything
   * @param <T> the work's result
   */
  record Lost<T>(LeaseLoss loss, Optional<Throwable> failure) implements RunOutcome<T> {}
}
