package io.leasehold.lease;

import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.internal.Arguments;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * The store as its leases see it ({@link LeaseControl}): a lease's own keep, renew, release and
 * forget, and the check that a lease handed to the store came from it. The leases {@link
 * LeaseGrants} hands out point back here. The clock and the listeners are the releases' own.
 */
record OwnLeaseOperations(
    LeaseTiming timing,
    BackgroundRenewal background,
    ChunkedRenewal renewal,
    LeaseReleases releases,
    TokenSigning signing,
    HandedOutLeases handedOut,
    StoreGate gate)
    implements LeaseControl {

  /**
   * @throws IllegalArgumentException if the lease is null or was acquired from another store
   */
  void ensureOwn(Lease lease) {
    Arguments.required(lease, "lease");
    if (lease.control() != this) {
      throw new IllegalArgumentException(lease + " was acquired from another lease store");
    }
  }

  @Override
  public Ticker ticker() {
    return releases.ticker();
  }

  @Override
  public long deadlineFrom(long sentAtNanos, Duration leaseTtl, boolean oneShot) {
    return timing.deadlineFrom(sentAtNanos, leaseTtl, oneShot);
  }

  @Override
  public void keep(Lease lease) {
    ensureOwn(lease);
    gate.ensureOpen();
    background.keep(lease);
  }

  @Override
  public RenewResult renew(Lease lease, Optional<Duration> newTtl) {
    ensureOwn(lease);
    gate.ensureOpen();
    newTtl.ifPresent(t -> timing.checkLeaseTtl(t, lease.isOneShot()));
    lease.checkDeadline();
    if (lease.isEnded() || !renewal.mayRenew(lease)) {
      // Locally lost or released, or refused by the policy: never extend it in the database
      // again, and answer without a round trip (issue 31).
      return new RenewResult(false, Optional.empty(), Optional.empty());
    }
    newTtl.ifPresent(lease::setTtl);
    RenewStatement.Renewals renewals = renewal.renewChunk(List.of(lease));
    Instant expiresAt = renewals.expiries()[0];
    return new RenewResult(
        expiresAt != null, Optional.ofNullable(expiresAt), Optional.of(renewals.databaseNow()));
  }

  /**
   * The release of a run's own handle: authorized by the acquire that made it. On a closed store
   * the lease was released by {@link LeaseStore#close()} already.
   */
  @Override
  public ReleaseResult release(Lease lease, Optional<Instant> holdUntil) {
    ensureOwn(lease);
    if (gate.closed().get()) {
      return new ReleaseResult(ReleaseResult.Outcome.NOT_HELD, Optional.empty());
    }
    return releases.release(lease.identity(), holdUntil);
  }

  @Override
  public void forget(Lease lease) {
    background.forget(lease);
    handedOut.forget(lease);
  }

  @Override
  public void lost(LeaseLoss loss) {
    releases.listeners().leaseLost(loss.reason());
  }

  @Override
  public FencingToken reissue(FencingToken token, Instant validFrom, Instant validUntil) {
    return signing.sign(token, validFrom, validUntil);
  }
}
