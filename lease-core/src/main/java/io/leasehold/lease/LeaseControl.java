package io.leasehold.lease;

import io.leasehold.fencing.FencingToken;
import java.time.Duration;
import java.time.Instant;

/**
 * What a {@link Lease} handle asks of the store that issued it: the clock of its local deadline,
 * and its own keep, renew, release and forget. Narrow on purpose, so the handle cannot reach the
 * rest of the store.
 */
interface LeaseControl {
  Ticker ticker();

  /** The local deadline of a lease whose statement was sent at {@code sentAtNanos}. */
  long deadlineFrom(long sentAtNanos, Duration ttl, boolean oneShot);

  void keep(Lease lease);

  /** Renews now; {@code newTtl}, if given, becomes the lease's length (Lease.renew(Duration)). */
  RenewResult renew(Lease lease, java.util.Optional<Duration> newTtl);

  /** Releases; the key unavailable until {@code holdUntil}, if given (Lease.releaseHolding). */
  ReleaseResult release(Lease lease, java.util.Optional<java.time.Instant> holdUntil);

  /** The lease ended: stop keeping it and forget it. */
  void forget(Lease lease);

  /** The lease was lost (after {@link #forget}), for the store's listeners. */
  void lost(LeaseLoss loss);

  /**
   * The token for a renewed lease: signed again for its new window when the store signs tokens ,
   * the token itself otherwise.
   */
  FencingToken reissue(FencingToken token, Instant validFrom, Instant validUntil);
}
