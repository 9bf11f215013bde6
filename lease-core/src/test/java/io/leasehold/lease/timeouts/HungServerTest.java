package io.leasehold.lease.timeouts;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.leasehold.fencing.LeaseKey;
import io.leasehold.lease.AccessPolicy;
import io.leasehold.lease.AcquireResult;
import io.leasehold.lease.Lease;
import io.leasehold.lease.LeaseLoss;
import io.leasehold.lease.LeaseStore;
import io.leasehold.lease.LeaseStoreException;
import io.leasehold.lease.support.LeaseDatabase;
import io.leasehold.testing.StoppedBackend;
import io.leasehold.testing.TestDataSources;
import io.leasehold.testing.TestDatabaseExtension;
import java.sql.Connection;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * CONTRACT C21 and C5 with a server that does not answer: the store's pooled backend is stopped
 * (SIGSTOP), so the server's statement timeout cannot fire. The client's own bound, twice the
 * statement timeout plus one second, ends the wait with an error that names it; before it, the call
 * waited until the backend ran again.
 */
@Timeout(60)
class HungServerTest {
  @RegisterExtension static final TestDatabaseExtension db = LeaseDatabase.extension();

  private static final Duration STATEMENT = Duration.ofSeconds(1);

  /** Twice the statement timeout plus one second. */
  private static final long BOUND_MILLIS = 3_000;

  /** For a loaded build machine. */
  private static final long SLACK_MILLIS = 2_000;

  @Test
  void anAcquireOnAStoppedBackendEndsWithTheNamedErrorInTime() throws Exception {
    try (Connection backend = db.database().newConnection();
        LeaseStore store = store(TestDataSources.oneConnection(backend), Duration.ofSeconds(30))) {
      LeaseKey key = LeaseKey.of("hung-acquire", "s");
      backend.setNetworkTimeout(Runnable::run, 0);
      // One acquire first: later ones skip the store's first-time checks.
      ((AcquireResult.Acquired) store.tryAcquire(LeaseKey.of("hung-acquire", "warm"), "caller"))
          .lease()
          .release();
      // A pool that resets nothing gets the caller's setting back.
      assertThat(backend.getNetworkTimeout()).isZero();
      long started;
      StoppedBackend stopped = StoppedBackend.stop(StoppedBackend.pidOf(backend));
      try {
        started = System.nanoTime();
        assertThatThrownBy(() -> store.tryAcquire(key, "caller"))
            .isInstanceOf(LeaseStoreException.class)
            .hasMessageContaining("could not acquire " + key)
            .hasMessageContaining("no answer from the database within " + BOUND_MILLIS + " ms")
            .hasMessageContaining("whether the statement committed is unknown");
      } finally {
        stopped.close();
      }
      long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
      assertThat(tookMillis).isBetween(BOUND_MILLIS - 100, BOUND_MILLIS + SLACK_MILLIS);
      // Closed, so a pool drops it rather than hand out a connection with an answer pending.
      assertThat(backend.isClosed()).isTrue();
    }
  }

  @Test
  void aKeptLeaseWhoseRenewalGetsNoAnswerIsLostBeforeItsDeadline() throws Exception {
    try (Connection backend = db.database().newConnection();
        LeaseStore store = store(TestDataSources.oneConnection(backend), Duration.ofSeconds(12))) {
      Lease kept =
          ((AcquireResult.Acquired) store.tryAcquire(LeaseKey.of("hung-renew", "s"), "caller"))
              .lease()
              .keepAlive();
      long started;
      LeaseLoss loss;
      StoppedBackend stopped = StoppedBackend.stop(StoppedBackend.pidOf(backend));
      try {
        started = System.nanoTime();
        // Renewed every second: the renewal after the stop fails at the bound, well before the
        // local deadline (12 s less the 1 s margin), which was all that ended the run before.
        loss = kept.whenLost().get(20, TimeUnit.SECONDS);
      } finally {
        stopped.close();
      }
      long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
      assertThat(loss.reason()).isEqualTo(LeaseLoss.Reason.RENEWAL_FAILED);
      assertThat(loss.cause().orElseThrow())
          .hasMessageContaining("no answer from the database within " + BOUND_MILLIS + " ms");
      assertThat(tookMillis).isLessThan(1_000 + BOUND_MILLIS + SLACK_MILLIS);
      assertThat(kept.isLost()).isTrue();
    }
  }

  private static LeaseStore store(DataSource pool, Duration ttl) {
    return LeaseStore.builder(pool)
        .accessPolicy(AccessPolicy.allowAll().withAdministrators(java.util.Set.of("ops")))
        .ttl(ttl)
        .renewInterval(Duration.ofSeconds(1))
        .safetyMargin(Duration.ofSeconds(1))
        .lockTimeout(Duration.ofMillis(500))
        .statementTimeout(STATEMENT)
        .build();
  }
}
