package io.leasehold.lease;

import java.time.Instant;
import java.util.UUID;

/**
 * The run recorded in a lease row, as the database last saw it.
 *
 * @param runId the run's id
 * @param fence the fence assigned when it acquired
 * @param holder the executor's description
 * @param acquiredAt database time of the acquisition
 * @param expiresAt database time at which the lease ends unless renewed
 * @param releasedAt database time of a clean release, or null if not released
 */
public record LeaseOwner(
    UUID runId,
    long fence,
    String holder,
    Instant acquiredAt,
    Instant expiresAt,
    Instant releasedAt) {
  /**
   * Checks required components.
   *
   * @throws IllegalArgumentException if a required component is null
   */
  public LeaseOwner {
    if (runId == null || holder == null || acquiredAt == null || expiresAt == null) {
      throw new IllegalArgumentException("runId, holder, acquiredAt and expiresAt are required");
    }
  }
}
