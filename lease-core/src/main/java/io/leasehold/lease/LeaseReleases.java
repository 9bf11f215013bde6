package io.leasehold.lease;

import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import java.time.Duration;

/**
 * The store's releases once the caller is authorized: the statement, what the listeners hear,
 * and the wake-up of acquires waiting for the key. {@link LeaseStore} checks the policy first.
 */
record LeaseReleases(LeaseRows rows, AcquireWaits waits, ListenerList listeners, Ticker ticker) {
  private static final System.Logger LOG = System.getLogger(LeaseStore.class.getName());

  /** Releases the run the token names, if it still holds the key (CONTRACT C4). */
  ReleaseResult release(FencingToken token) {
    return release(token, java.util.Optional.empty());
  }

  /** As {@link #release(FencingToken)}, the key unavailable until {@code holdUntil} if given. */
  ReleaseResult release(FencingToken token, java.util.Optional<java.time.Instant> holdUntil) {
    listeners.started(LeaseStoreListener.Operation.RELEASE);
    long startedAt = ticker.read();
    ReleaseResult result;
    try {
      result = rows.release(token, holdUntil);
    } catch (RuntimeException | Error e) {
      listeners.releaseEnded(LeaseStoreListener.ReleaseOutcome.ERROR, Duration.ofNanos(ticker.read() - startedAt));
      throw e;
    }
    if (result.outcome() == ReleaseResult.Outcome.RELEASED) {
      waits.ended(token.key());
    }
    listeners.releaseEnded(
        result.outcome() == ReleaseResult.Outcome.RELEASED
            ? LeaseStoreListener.ReleaseOutcome.RELEASED
            : LeaseStoreListener.ReleaseOutcome.NOT_HELD,
        Duration.ofNanos(ticker.read() - startedAt));
    return result;
  }

  /** A release at close or after a late answer: a failure leaves the lease to expire. */
  void releaseQuietly(Lease lease) {
    try {
      release(lease.identity());
    } catch (LeaseStoreException e) {
      LOG.log(System.Logger.Level.WARNING, "could not release " + lease + " on close; it will expire", e);
    }
  }

  /** The administrative release, audited by the statement itself. */
  ReleaseResult forceRelease(LeaseKey key, String caller, String reason) {
    ReleaseResult result = rows.forceRelease(key, caller, reason);
    if (result.outcome() == ReleaseResult.Outcome.RELEASED) {
      waits.ended(key);
    }
    return result;
  }
}
