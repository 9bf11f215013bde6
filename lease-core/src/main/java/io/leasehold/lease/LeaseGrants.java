package io.leasehold.lease;

import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.SigningKey;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.UUID;
import java.util.function.BooleanSupplier;

/**
 * One acquire once the caller is authorized: the statement, the signed token, the local deadline
 * (CONTRACT C2), the late answer released again, and what the listeners hear; the leases it hands
 * out are recorded in {@code live}. {@link LeaseStore} checks the request and the policy first.
 */
record LeaseGrants(
    LeaseRows rows,
    LeaseReleases releases,
    ListenerList listeners,
    Ticker ticker,
    SigningKey signingKey,
    LeaseControl control,
    BooleanSupplier closed,
    LiveLeases live) {
  /** Tries once, timing the attempt for the listeners. */
  AcquireResult acquire(AcquireRequest request, Duration leaseTtl, String holder) {
    listeners.started(LeaseStoreListener.Operation.ACQUIRE);
    long startedAt = ticker.read();
    AcquireResult result;
    try {
      result = acquireOnce(request, leaseTtl, holder, startedAt);
    } catch (RuntimeException | Error e) {
      listeners.acquireEnded(LeaseStoreListener.AcquireOutcome.ERROR, Duration.ofNanos(ticker.read() - startedAt));
      throw e;
    }
    listeners.acquireEnded(
        result instanceof AcquireResult.Acquired
            ? LeaseStoreListener.AcquireOutcome.ACQUIRED
            : result instanceof AcquireResult.Busy
                ? LeaseStoreListener.AcquireOutcome.BUSY
                : LeaseStoreListener.AcquireOutcome.TOO_LATE,
        Duration.ofNanos(ticker.read() - startedAt));
    return result;
  }

  /** One acquire; {@code sentAt} starts the local deadline (CONTRACT C2), read before sending. */
  private AcquireResult acquireOnce(AcquireRequest request, Duration leaseTtl, String holder, long sentAt) {
    LeaseKey key = request.key();
    UUID runId = UUID.randomUUID();
    LeaseRows.AcquireAnswer answer;
    try {
      answer = rows.acquire(key, runId, holder, leaseTtl);
    } catch (LeaseStoreException e) {
      if (!StatementRunner.isLockTimeout(e)) {
        throw e;
      }
      // CONTRACT C18: a contender held the row's lock longer than the lock timeout, so it was
      // taking the key: the key is busy, which is an answer, not a failure.
      return new AcquireResult.Busy(rows.status(key));
    }
    if (!(answer instanceof LeaseRows.Granted granted)) {
      LeaseStatus seen = ((LeaseRows.Refused) answer).seen();
      // A refusal whose snapshot shows the key free lost a race to a concurrent acquire, whose
      // row the snapshot could not see yet: read who won.
      return new AcquireResult.Busy(
          seen == null || seen.state() == LeaseStatus.State.FREE ? rows.status(key) : seen);
    }
    FencingToken unsigned = new FencingToken(key, granted.fence(), runId);
    FencingToken token = signed(unsigned, granted.acquiredAt(), granted.expiresAt());
    long deadline = control.deadlineFrom(sentAt, leaseTtl, request.oneShot());
    // A one-shot lease is handed out even when its TTL ended before the answer came: its caller
    // asked for exactly that length, and the lease is then known lost at once (its token refused).
    if (!request.oneShot() && ticker.read() - deadline >= 0) {
      Optional<ReleaseResult> released;
      try {
        released = Optional.of(releases.release(token));
      } catch (LeaseStoreException e) {
        released = Optional.empty();
      }
      return new AcquireResult.TooLate(token, released);
    }
    Lease lease =
        new Lease(control, token, request.caller(), holder, leaseTtl, granted.acquiredAt(), granted.expiresAt(), deadline,
            request.oneShot());
    live.add(lease);
    if (closed.getAsBoolean()) {
      // close() ran while this acquire was in flight: it must not hand out a lease that lies.
      lease.markLost(LeaseLoss.Reason.STORE_CLOSED, null);
      releases.releaseQuietly(lease);
    }
    return new AcquireResult.Acquired(lease);
  }

  /**
   * A token as this store issues it: signed for the lease's window in database time when the
   * store has a signing key (CONTRACT C20), so a copied token stops working soon after the run
   * stops renewing.
   */
  FencingToken signed(FencingToken token, Instant validFrom, Instant validUntil) {
    return signingKey == null ? token : signingKey.sign(token.unsigned(), validFrom, validUntil);
  }
}
