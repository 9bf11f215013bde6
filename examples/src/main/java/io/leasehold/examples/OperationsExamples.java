package io.leasehold.examples;

import io.leasehold.lease.LeaseStore;
import java.time.Duration;

/** docs/operations.md's samples, compiled on every build. */
public final class OperationsExamples {
  private OperationsExamples() {}

  /**
   * The daily sweep of long-dead lease rows.
   *
   * @param store the lease store
   * @return the number of rows deleted
   */
  public static long dailySweep(LeaseStore store) {
    // region sweep
    long deleted =
        store
            .admin()
            .sweep(Duration.ofDays(7), "ops"); // rows of leases that ended a week ago or more
    // endregion
    return deleted;
  }
}
