package io.leasehold.lease;

import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.internal.Arguments;
import java.util.Optional;

/**
 * The answer to {@link LeaseStore#tryAcquire(AcquireRequest)}: exactly one of
 *
 * <ul>
 *   <li>{@link Acquired}: this run now holds the lease;
 *   <li>{@link Busy}: another run holds it (or the takeover delay is still running); the
 *       authoritative status says who and until when;
 *   <li>{@link TooLate}: the database granted the lease, but the answer arrived after the local
 *       deadline, so the store released it again and the run must not start.
 * </ul>
 */
public sealed interface AcquireResult {
  /**
   * The lease, if acquired.
   *
   * @return the lease when this is {@link Acquired}
   */
  default Optional<Lease> acquiredLease() {
    return this instanceof Acquired a ? Optional.of(a.lease()) : Optional.empty();
  }

  /**
   * The holder's status, if refused.
   *
   * @return the status when this is {@link Busy}
   */
  default Optional<LeaseStatus> busyStatus() {
    return this instanceof Busy b ? Optional.of(b.status()) : Optional.empty();
  }

  /**
   * Turns the answer into a value, one function per outcome: {@code switch} over a sealed type
   * without Java 21's patterns.
   *
   * <pre>{@code
   * String shown = result.match(
   *     lease -> "running with fence " + lease.fence(),
   *     status -> "busy: " + status.owner().map(LeaseOwner::holder).orElse("someone"),
   *     tooLate -> "the database answered too late; try again");
   * }</pre>
   *
   * @param acquired called with the lease if acquired
   * @param busy called with the holder's status if refused
   * @param tooLate called if the grant came after the local deadline
   * @param <T> the value's type
   * @return what the matching function returned
   */
  default <T> T match(
      java.util.function.Function<Lease, T> acquired,
      java.util.function.Function<LeaseStatus, T> busy,
      java.util.function.Function<TooLate, T> tooLate) {
    if (this instanceof Acquired a) {
      return acquired.apply(a.lease());
    }
    if (this instanceof Busy b) {
      return busy.apply(b.status());
    }
    return tooLate.apply((TooLate) this);
  }

  /**
   * The run now holds the lease.
   *
   * @param lease the handle; release or close it when done
   */
  record Acquired(Lease lease) implements AcquireResult {
    /**
     * Checks the component.
     *
     * @throws IllegalArgumentException if null
     */
    public Acquired {
      Arguments.required(lease, "lease");
    }
  }

  /**
   * Someone else holds the key, or it is draining after an expiry.
   *
   * @param status the authoritative status read right after the refused attempt (it may already
   *     show the key free if the holder released in between)
   */
  record Busy(LeaseStatus status) implements AcquireResult {
    /**
     * Checks the component.
     *
     * @throws IllegalArgumentException if null
     */
    public Busy {
      Arguments.required(status, "status");
    }
  }

  /**
   * The database granted the lease but the answer came after the local deadline; the store has
   * tried to release it, and the run must not start.
   *
   * @param token the token that was granted
   * @param release what the release did
   */
  record TooLate(FencingToken token, Optional<ReleaseResult> release) implements AcquireResult {
    /**
     * Checks the components.
     *
     * @throws IllegalArgumentException if null
     */
    public TooLate {
      if (token == null || release == null) {
        throw new IllegalArgumentException("token and release must not be null");
      }
    }
  }
}
