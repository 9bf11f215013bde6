package io.leasehold.lease.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.LeaseLostException;
import io.leasehold.lease.AccessPolicy;
import io.leasehold.lease.Lease;
import io.leasehold.lease.LeaseLoss;
import io.leasehold.lease.LeaseStore;
import io.leasehold.lease.ReleaseResult;
import io.leasehold.lease.support.LeaseDatabase;
import io.leasehold.testing.TestDatabaseExtension;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 13, the store's lifecycle: close() released only kept leases (a lease never kept alive
 * still handed out a valid token after close), Lease.release() on a closed store threw and left the
 * row held until the TTL, and close() from a loss listener waited 10 s on its own pool.
 */
class CloseEndsEveryLeaseTest {
  @RegisterExtension static final TestDatabaseExtension db = LeaseDatabase.extension();
  private static final AtomicInteger KEYS = new AtomicInteger();

  private static LeaseStore store() {
    return LeaseDatabase.store(db, AccessPolicy.allowAll(), Duration.ofMinutes(5));
  }

  /** A lease, never kept alive, of a store that was then closed. */
  private static Lease acquiredThenClosed(LeaseKey key) {
    LeaseStore store = store();
    Lease lease = store.tryAcquire(key, "acct").acquiredLease().orElseThrow();
    store.close();
    return lease;
  }

  @Test
  void closeEndsAndReleasesALeaseThatWasNeverKeptAlive() {
    LeaseKey key = LeaseKey.of("acct", "close-" + KEYS.incrementAndGet());
    Lease lease = acquiredThenClosed(key);
    assertThatThrownBy(lease::token).isInstanceOf(LeaseLostException.class);
    assertThat(lease.loss().orElseThrow().reason()).isEqualTo(LeaseLoss.Reason.STORE_CLOSED);
    try (LeaseStore next = store()) {
      // Released in the database: the next run does not wait for the 5-minute TTL.
      assertThat(next.tryAcquire(key, "acct").acquiredLease()).isPresent();
    }
  }

  @Test
  void releaseAfterCloseIsAnAnswerNotAnError() {
    Lease lease = acquiredThenClosed(LeaseKey.of("acct", "close-" + KEYS.incrementAndGet()));
    assertThat(lease.release().outcome()).isEqualTo(ReleaseResult.Outcome.NOT_HELD);
    lease.close();
  }

  @Test
  @Timeout(value = 8, unit = TimeUnit.SECONDS)
  void closeFromALossListenerDoesNotWaitForItself() throws Exception {
    LeaseKey key = LeaseKey.of("acct", "close-" + KEYS.incrementAndGet());
    LeaseStore store = LeaseDatabase.store(db, AccessPolicy.allowAll(), Duration.ofSeconds(2));
    Lease lease = store.tryAcquire(key, "acct").acquiredLease().orElseThrow().keepAlive();
    CompletableFuture<Long> closedIn = new CompletableFuture<>();
    lease.onLost(
        loss -> {
          long start = System.nanoTime();
          store.close();
          closedIn.complete(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
        });
    // Another run takes over: the keeper's next renewal is refused, on the keeper's own thread.
    db.database()
        .execute(
            "UPDATE leasehold_lease SET run_id = gen_random_uuid() WHERE account_id = 'acct' AND session_id = '"
                + key.sessionId()
                + "'");
    // Before the fix, close() waited 10 s for the keeper's own task to end.
    assertThat(closedIn.get(6, TimeUnit.SECONDS)).isNotNegative();
    assertThat(store.isClosed()).isTrue();
  }
}
