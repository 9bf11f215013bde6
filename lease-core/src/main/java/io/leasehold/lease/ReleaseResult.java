package io.leasehold.lease;

import java.time.Instant;
import java.util.Optional;

/**
 * What a release did. Both outcomes are normal; releasing is idempotent.
 *
 * @param outcome whether the run's lease was released
 * @param databaseNow the database clock at the release; empty when the handle was already released
 *     and no statement was sent
 */
public record ReleaseResult(Outcome outcome, Optional<Instant> databaseNow) {
  /** The outcomes of a release. */
  public enum Outcome {
    /** The run held the lease and released it; the key is free now. */
    RELEASED,
    /**
     * The run did not hold the lease any more (it expired, was taken over by another run, or was
     * already released). Nothing was changed: in particular another run's lease is untouched.
     */
    NOT_HELD
  }

  /**
   * Checks the components.
   *
   * @throws IllegalArgumentException if a component is null
   */
  public ReleaseResult {
    if (outcome == null || databaseNow == null) {
      throw new IllegalArgumentException("outcome and databaseNow must not be null");
    }
  }

  /**
   * Whether the lease was released by this call.
   *
   * @return true for {@link Outcome#RELEASED}
   */
  public boolean released() {
    return outcome == Outcome.RELEASED;
  }

  @Override
  public String toString() {
    return outcome.toString();
  }
}
