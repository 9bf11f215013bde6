package io.leasehold.lease;

import java.time.Duration;

/**
 * What a store reports as it works, for metrics (see {@code leasehold-micrometer}'s {@code
 * LeaseholdMetrics}) and logs. Register one with {@link LeaseStore#addListener}. Methods are
 * called on the thread that did the work (a caller's, or the keeper's): keep them quick. An
 * exception a listener throws is logged and ignored. Every method has an empty default.
 */
public interface LeaseStoreListener {
  /** How an acquire attempt ended. */
  enum AcquireOutcome {
    /** The run got the lease. */
    ACQUIRED,
    /** Someone else holds the key (CONTRACT C18). */
    BUSY,
    /** Granted, but the answer came after the local deadline; released again. */
    TOO_LATE,
    /** The database failed; the outcome is unknown. */
    ERROR
  }

  /**
   * An acquire attempt ended (each try of a waiting acquire counts).
   *
   * @param outcome how
   * @param latency from sending to the answer, by the store's ticker
   */
  default void acquireEnded(AcquireOutcome outcome, Duration latency) {}

  /**
   * A renewal round of the keeper (or a {@link LeaseStore#renewAll}) completed.
   *
   * @param leases how many leases it covered
   * @param lost how many of them it found lost
   * @param latency how long the round took
   */
  default void renewalRound(int leases, int lost, Duration latency) {}

  /**
   * A renewal round failed as a whole (its leases are lost).
   *
   * @param leases how many leases it covered
   * @param latency how long it took to fail
   * @param error what failed
   */
  default void renewalFailed(int leases, Duration latency, Throwable error) {}

  /**
   * A lease this store handed out was lost.
   *
   * @param reason why
   */
  default void leaseLost(LeaseLoss.Reason reason) {}
}
