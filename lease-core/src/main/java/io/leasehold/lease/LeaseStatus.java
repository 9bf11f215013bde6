package io.leasehold.lease;

import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.internal.Arguments;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * The authoritative state of one lease key, read from the database. A front end that restarted, or
 * a device that did not start the run, asks for this to learn who runs now.
 *
 * @param key the lease key
 * @param state what the key's state is at {@code databaseNow}
 * @param owner the run recorded for the key: the holder when {@link State#HELD}, the last holder
 *     otherwise; empty if the key was never acquired
 * @param databaseNow the database clock when the status was read
 * @param acquirableAt the database time from which a new run can acquire ({@code databaseNow} or
 *     earlier when it already can)
 */
public record LeaseStatus(
    LeaseKey key,
    State state,
    Optional<LeaseOwner> owner,
    Instant databaseNow,
    Instant acquirableAt) {

  /** The state of a lease key. */
  public enum State {
    /** Never acquired, released, or expired long enough ago: a new run can acquire now. */
    FREE,
    /** A live lease: only its run may act until it expires or is released. */
    HELD,
    /**
     * Expired without a release, within the store's takeover delay, or released with a hold ({@link
     * Lease#releaseHolding}) that has not passed: nobody holds it, and nobody can acquire before
     * {@link LeaseStatus#acquirableAt()}.
     */
    DRAINING
  }

  /**
   * Checks required components.
   *
   * @throws IllegalArgumentException if a component is null
   */
  public LeaseStatus {
    Arguments.allRequired(key, state, owner, databaseNow, acquirableAt);
  }

  /**
   * Time left on the current lease, by the database clock.
   *
   * @return the remaining time when {@link State#HELD}, else zero
   */
  public Duration remaining() {
    if (state != State.HELD) {
      return Duration.ZERO;
    }
    return Duration.between(databaseNow, owner.orElseThrow().expiresAt());
  }

  /**
   * Whether a run holds the key.
   *
   * @return true when {@link State#HELD}
   */
  public boolean isHeld() {
    return state == State.HELD;
  }
}
