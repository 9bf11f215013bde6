package io.leasehold.lease;

/** What a release did. Both outcomes are normal; releasing is idempotent. */
public enum ReleaseResult {
  /** The run held the lease and released it; the key is free now. */
  RELEASED,
  /**
   * The run did not hold the lease any more (it expired, was taken over by another run, or was
   * already released). Nothing was changed: in particular another run's lease is untouched.
   */
  NOT_HELD
}
