package io.leasehold.lease;

import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.internal.Arguments;
import java.util.Optional;

/**
 * Why a run stopped holding its lease involuntarily.
 *
 * @param token the lost lease's token
 * @param reason the kind of loss
 * @param cause the failure behind {@link Reason#RENEWAL_FAILED}, if any
 */
public record LeaseLoss(FencingToken token, Reason reason, Optional<Throwable> cause) {
  /** Kinds of loss. */
  public enum Reason {
    /** The database answered that the run no longer holds the lease. */
    RENEWAL_REFUSED,
    /** The renewal statement failed (connection lost, timeout): the outcome is unknown. */
    RENEWAL_FAILED,
    /** The local deadline passed before a renewal was confirmed. */
    DEADLINE_PASSED,
    /** The acquire answer arrived after the local deadline; the run never started. */
    ANSWER_TOO_LATE,
    /** The store was closed while the lease was kept. */
    STORE_CLOSED,
    /** The access policy no longer lets the run's caller renew the session. */
    ACCESS_REVOKED
  }

  /**
   * Checks required components.
   *
   * @throws IllegalArgumentException if a component is null
   */
  public LeaseLoss {
    Arguments.allRequired(token, reason, cause);
  }

  @Override
  public String toString() {
    return reason + cause.map(c -> " (" + c + ")").orElse("");
  }
}
