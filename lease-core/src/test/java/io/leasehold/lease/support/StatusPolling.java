package io.leasehold.lease.support;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.fencing.LeaseKey;
import io.leasehold.lease.LeaseStatus;
import io.leasehold.lease.LeaseStore;
import java.time.Duration;
import java.util.function.Predicate;

/** Waits for the authoritative status to reach a state, failing after a bound. */
public final class StatusPolling {
  private StatusPolling() {}

  public static LeaseStatus awaitStatus(
      LeaseStore store, LeaseKey key, Predicate<LeaseStatus> condition, Duration bound)
      throws InterruptedException {
    long deadline = System.nanoTime() + bound.toNanos();
    LeaseStatus status = store.status(key, "app");
    while (!condition.test(status)) {
      assertThat(System.nanoTime() - deadline)
          .as("status %s within %s", status, bound)
          .isNegative();
      Thread.sleep(20);
      status = store.status(key, "app");
    }
    return status;
  }
}
