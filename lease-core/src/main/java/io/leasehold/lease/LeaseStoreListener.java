package io.leasehold.lease;

import java.time.Duration;

/**
 * What a store reports as it works, for metrics and tracing (see {@code leasehold-micrometer}'s
 * {@code LeaseholdMetrics} and {@code LeaseholdObservations}) and logs. Register one with {@link
 * LeaseStore#addListener}. Methods are called on the thread that did the work (a caller's, or the
 * keeper's): keep them quick. An exception a listener throws is logged and ignored. Every method
 * has an empty default.
 */
public interface LeaseStoreListener {
  /** How an acquire attempt ended. */
  enum AcquireOutcome {
    /** The run got the lease. */
    ACQUIRED,
    /** Someone else holds the key. */
    BUSY,
    /** Granted, but the answer came after the local deadline; released again. */
    TOO_LATE,
    /** The database failed; the outcome is unknown. */
    ERROR
  }

  /** An operation that is reported from its start to its end, for tracing. */
  enum Operation {
    /** An acquire attempt; ends with {@link #acquireEnded}. */
    ACQUIRE,
    /** A renewal round of the keeper; ends with {@link #renewalRound} or {@link #renewalFailed}. */
    RENEWAL,
    /** A release; ends with {@link #releaseEnded}. */
    RELEASE
  }

  /** How a release ended. */
  enum ReleaseOutcome {
    /** The run held the lease and released it. */
    RELEASED,
    /** The run no longer held it (expired, taken over, released already). */
    NOT_HELD,
    /** The database failed; the outcome is unknown. */
    ERROR
  }

  /**
   * An operation started on this thread. Its end is reported exactly once, on the same thread,
   * whatever happens. Operations on one thread nest (an acquire that was granted too late releases
   * the grant before it ends) but never interleave, so a listener can keep a per-thread stack from
   * start to end (of spans, of timer samples).
   *
   * @param operation which
   */
  default void started(Operation operation) {}

  /**
   * A release ended (of a run's own lease, or by token).
   *
   * @param outcome how
   * @param latency from sending to the answer, by the store's ticker
   */
  default void releaseEnded(ReleaseOutcome outcome, Duration latency) {}

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
