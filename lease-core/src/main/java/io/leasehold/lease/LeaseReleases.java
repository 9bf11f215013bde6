package io.leasehold.lease;

import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * The store's releases once the caller is authorized: the statement, the change published, what the
 * listeners hear, and the wake-up of acquires waiting for the key. {@link LeaseStore} checks the
 * policy first.
 *
 * @param publisher where a publishing store's releases go, or null
 */
record LeaseReleases(
    ReleaseStatements statements,
    ChangePublisher publisher,
    AcquireWaits waits,
    ListenerList listeners,
    Ticker ticker) {

  /** Releases the run the token names, if it still holds the key. */
  ReleaseResult release(FencingToken token) {
    return release(token, Optional.empty());
  }

  /** As {@link #release(FencingToken)}, the key unavailable until {@code holdUntil} if given. */
  ReleaseResult release(FencingToken token, Optional<Instant> holdUntil) {
    listeners.started(LeaseStoreListener.Operation.RELEASE);
    long startedAt = ticker.read();
    ReleaseResult result;
    try {
      result = statements.release(token, holdUntil);
    } catch (RuntimeException | Error e) {
      listeners.releaseEnded(
          LeaseStoreListener.ReleaseOutcome.ERROR, Duration.ofNanos(ticker.read() - startedAt));
      throw e;
    }
    if (result.outcome() == ReleaseResult.Outcome.RELEASED) {
      publishRelease(token.key(), token.fence());
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
      StoreLog.warn("could not release " + lease + " on close; it will expire", e);
    }
  }

  /** The administrative release, audited by the statement itself. */
  ReleaseResult forceRelease(LeaseKey key, String caller, String reason) {
    ReleaseStatements.Forced forced = statements.forceRelease(key, caller, reason);
    if (forced.result().outcome() == ReleaseResult.Outcome.RELEASED) {
      publishRelease(key, forced.fence());
      waits.ended(key);
    }
    return forced.result();
  }

  private void publishRelease(LeaseKey key, long fence) {
    if (publisher != null) {
      publisher.publish(ChangePublisher.Event.RELEASED, key, fence);
    }
  }
}
