package io.leasehold.lease;

import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.function.BooleanSupplier;

/**
 * One acquire once the caller is authorized: the fence source confirmed, the statement, the signed
 * token, the local deadline, the late answer released again, the change published, and what the
 * listeners hear; the leases it hands out are recorded in {@code handedOut}. {@link LeaseStore}
 * checks the request and the policy first.
 *
 * @param publisher where a publishing store's grants go, or null
 */
record LeaseGrants(
    AcquireStatements statements,
    ReadStatements reads,
    FenceSource fenceSource,
    ChangePublisher publisher,
    LeaseReleases releases,
    ListenerList listeners,
    Ticker ticker,
    TokenSigning signing,
    LeaseControl control,
    BooleanSupplier closed,
    HandedOutLeases handedOut) {
  /** Tries once, timing the attempt for the listeners. */
  AcquireResult acquire(AcquireRequest request, Duration leaseTtl, String holder) {
    listeners.started(LeaseStoreListener.Operation.ACQUIRE);
    long startedAt = ticker.read();
    AcquireResult result;
    try {
      result = acquireOnce(request, leaseTtl, holder, startedAt);
    } catch (RuntimeException | Error e) {
      listeners.acquireEnded(
          LeaseStoreListener.AcquireOutcome.ERROR, Duration.ofNanos(ticker.read() - startedAt));
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

  /** One acquire; {@code sentAt}, read before sending, starts the local deadline. */
  private AcquireResult acquireOnce(
      AcquireRequest request, Duration leaseTtl, String holder, long sentAt) {
    LeaseKey key = request.key();
    UUID runId = UUID.randomUUID();
    AcquireStatements.Answer answer;
    try {
      // No fence is drawn before the store knows it draws from the table's own sequence.
      fenceSource.confirm();
      answer = statements.acquire(key, runId, holder, leaseTtl);
    } catch (LeaseStoreException e) {
      if (!StatementRunner.isLockTimeout(e)) {
        throw e;
      }
      // CONTRACT C18: a contender held the row's lock longer than the lock timeout, so it was
      // taking the key: the key is busy, which is an answer, not a failure.
      return new AcquireResult.Busy(reads.status(key));
    }
    if (!(answer instanceof AcquireStatements.Granted granted)) {
      LeaseStatus seen = ((AcquireStatements.Refused) answer).seen();
      // A refusal whose snapshot shows the key free lost a race to a concurrent acquire, whose
      // row the snapshot could not see yet: read who won.
      return new AcquireResult.Busy(
          seen == null || seen.state() == LeaseStatus.State.FREE ? reads.status(key) : seen);
    }
    if (publisher != null) {
      publisher.publish(
          granted.tookOver() ? ChangePublisher.Event.TAKEN_OVER : ChangePublisher.Event.ACQUIRED,
          key,
          granted.fence());
    }
    FencingToken unsigned = new FencingToken(key, granted.fence(), runId);
    FencingToken token = signing.sign(unsigned, granted.acquiredAt(), granted.expiresAt());
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
    Lease lease = new Lease(control, request, holder, leaseTtl, token, granted, deadline);
    handedOut.add(lease);
    if (closed.getAsBoolean()) {
      // close() ran while this acquire was in flight: it must not hand out a lease that lies.
      lease.markLost(LeaseLoss.Reason.STORE_CLOSED, null);
      releases.releaseQuietly(lease);
    }
    return new AcquireResult.Acquired(lease);
  }
}
