package io.leasehold.lease;

import java.time.Duration;

/**
 * A store's lengths of time, and the two rules built on them: which lease lengths a request may ask
 * for, and when a lease's local deadline falls.
 */
record LeaseTiming(
    Duration ttl, Duration renewInterval, Duration safetyMargin, Duration statementTimeout) {
  /**
   * The local deadline of a lease whose statement was sent at {@code sentAtNanos} (by the store's
   * ticker): its length after the sending, less the safety margin.
   */
  long deadlineFrom(long sentAtNanos, Duration leaseTtl, boolean oneShot) {
    long margin = safetyMargin.toNanos();
    if (oneShot && leaseTtl.compareTo(ttl) < 0) {
      // The margin absorbs clock-rate differences, which grow with the length: a one-shot lease
      // shorter than the store's TTL gets the margin scaled down to its length, or a 2 s lock
      // would be lost before it was handed out.
      margin = (long) (margin * ((double) leaseTtl.toNanos() / ttl.toNanos()));
    }
    return sentAtNanos + leaseTtl.toNanos() - margin;
  }

  /**
   * Checks a requested lease length.
   *
   * @throws IllegalArgumentException if it is out of bounds, or too short to be renewed in time
   */
  void checkLeaseTtl(Duration leaseTtl, boolean oneShot) {
    if (oneShot) {
      // Never renewed, so no room for a renewal is needed; the length is what the caller asked.
      LeaseStoreBuilder.checkRange(
          "one-shot ttl", leaseTtl, LeaseStore.MIN_ONE_SHOT_TTL, LeaseStore.MAX_TTL);
      return;
    }
    if (leaseTtl != null && leaseTtl.compareTo(LeaseStore.MIN_TTL) < 0) {
      throw new IllegalArgumentException(
          "ttl "
              + leaseTtl
              + " is shorter than "
              + LeaseStore.MIN_TTL
              + ", the shortest lease that can be kept"
              + " alive; for a lease that is never kept alive use AcquireRequest.oneShot(ttl)");
    }
    LeaseStoreBuilder.checkRange("ttl", leaseTtl, LeaseStore.MIN_TTL, LeaseStore.MAX_TTL);
    Duration needed = renewInterval.plus(statementTimeout).plus(safetyMargin);
    if (leaseTtl.compareTo(needed) < 0) {
      throw new IllegalArgumentException(
          "ttl "
              + leaseTtl
              + " is shorter than renew interval + statement timeout + safety margin ("
              + needed
              + "): a renewal could not complete before the local deadline. Ask for a longer ttl, or"
              + " for a lease that is never kept alive use AcquireRequest.oneShot(ttl)");
    }
  }
}
