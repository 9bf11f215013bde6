package io.leasehold.lease;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.LeaseLostException;
import io.leasehold.testing.TestDatabaseExtension;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The keeper and the one-call form: CONTRACT C6 (stop on loss). */
class KeeperTest {
  @RegisterExtension static final TestDatabaseExtension db = LeaseDatabase.extension();

  private static final Duration TTL = Duration.ofMillis(600);
  private static final AtomicInteger KEYS = new AtomicInteger();
  private LeaseStore store;
  private LeaseStore other;
  private LeaseKey key;

  @BeforeEach
  void setUp() {
    store = LeaseStore.builder(db.dataSource()).accessPolicy(AccessPolicy.allowAll()).ttl(TTL).build();
    other = LeaseStore.builder(db.dataSource()).accessPolicy(AccessPolicy.allowAll()).ttl(TTL).build();
    key = LeaseKey.of("acct", "kept-" + KEYS.incrementAndGet());
  }

  @AfterEach
  void tearDown() {
    store.close();
    other.close();
  }

  private Lease acquire() {
    return ((AcquireResult.Acquired) store.tryAcquire(key, "acct")).lease();
  }

  /** Takes the lease over in the database the way a rival would after an expiry. */
  private Lease takeOver() {
    db.database()
        .execute(
            "UPDATE leasehold_lease SET expires_at = clock_timestamp() - interval '1 ms'"
                + " WHERE session_id = '" + key.sessionId() + "'");
    return ((AcquireResult.Acquired) other.tryAcquire(key, "acct")).lease();
  }

  @Test
  void keptLeaseOutlivesManyTtls() throws Exception {
    Lease lease = acquire().keepAlive();
    Instant goal = lease.acquiredAt().plus(TTL.multipliedBy(4));
    LeaseStatus status =
        StatusPolling.awaitStatus(
            store, key, s -> s.owner().orElseThrow().expiresAt().isAfter(goal), TTL.multipliedBy(8));
    assertThat(status.state()).isEqualTo(LeaseStatus.State.HELD);
    assertThat(status.owner().orElseThrow().runId()).isEqualTo(lease.runId());
    assertThat(lease.isLost()).isFalse();
    assertThat(store.keptLeaseCount()).isEqualTo(1);
  }

  @Test
  void takeoverIsNoticedAtTheNextRenewalAndStopsTheRun() throws Exception {
    Lease lease = acquire().keepAlive();
    AtomicInteger calls = new AtomicInteger();
    lease.onLost(loss -> calls.incrementAndGet());
    Lease rival = takeOver();

    LeaseLoss loss = lease.whenLost().get(5, TimeUnit.SECONDS);
    assertThat(loss.reason()).isEqualTo(LeaseLoss.Reason.RENEWAL_REFUSED);
    assertThat(calls).hasValue(1);
    assertThatThrownBy(lease::token).isInstanceOf(LeaseLostException.class);
    assertThat(store.keptLeaseCount()).isZero();
    assertThat(store.status(key, "app").owner().orElseThrow().runId()).isEqualTo(rival.runId());
  }

  @Test
  void failingRenewalIsALossEvenBeforeTheDatabaseSaysNo() throws Exception {
    Lease lease = acquire().keepAlive();
    try (Connection side = db.database().newConnection()) {
      side.setAutoCommit(false);
      try (Statement s = side.createStatement()) {
        // Holding the row lock makes the renewal hit lock_timeout.
        s.execute("SELECT 1 FROM leasehold_lease WHERE session_id = '" + key.sessionId() + "' FOR UPDATE");
        LeaseLoss loss = lease.whenLost().get(5, TimeUnit.SECONDS);
        assertThat(loss.reason()).isEqualTo(LeaseLoss.Reason.RENEWAL_FAILED);
        assertThat(loss.cause()).get().isInstanceOf(LeaseStoreException.class);
      }
      side.rollback();
    }
    assertThatThrownBy(lease::token).isInstanceOf(LeaseLostException.class);
  }

  @Test
  void aThrowingListenerDoesNotBreakRenewalOfOtherLeases() throws Exception {
    Lease doomed = acquire().keepAlive();
    doomed.onLost(
        loss -> {
          throw new IllegalStateException("listener bug");
        });
    LeaseKey otherKey = LeaseKey.of("acct", key.sessionId() + "-survivor");
    Lease survivor = ((AcquireResult.Acquired) store.tryAcquire(otherKey, "acct")).lease().keepAlive();
    takeOver();
    doomed.whenLost().get(5, TimeUnit.SECONDS);
    Instant goal = survivor.acquiredAt().plus(TTL.multipliedBy(3));
    StatusPolling.awaitStatus(
        store, otherKey, s -> s.owner().orElseThrow().expiresAt().isAfter(goal), TTL.multipliedBy(8));
    assertThat(survivor.isLost()).isFalse();
  }

  @Test
  void runExclusiveInterruptsTheWorkOnLossAndReportsIt() throws Exception {
    CountDownLatch working = new CountDownLatch(1);
    Thread taker =
        new Thread(
            () -> {
              try {
                working.await();
                takeOver();
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            });
    taker.start();
    RunOutcome<String> outcome =
        store.runExclusive(
            AcquireRequest.of(key, "acct"),
            lease -> {
              working.countDown();
              Thread.sleep(Duration.ofMinutes(1).toMillis()); // interrupted on loss
              return "finished";
            });
    taker.join();
    assertThat(outcome).isInstanceOfSatisfying(
        RunOutcome.Lost.class,
        lost -> {
          assertThat(lost.loss().reason()).isEqualTo(LeaseLoss.Reason.RENEWAL_REFUSED);
          assertThat(((RunOutcome.Lost<?>) lost).failure()).containsInstanceOf(InterruptedException.class);
        });
    assertThat(Thread.currentThread().isInterrupted()).isFalse();
  }

  @Test
  void runExclusiveCompletesAndReleases() {
    RunOutcome<Long> outcome =
        store.runExclusive(AcquireRequest.of(key, "acct"), lease -> lease.token().fence());
    assertThat(outcome).isInstanceOfSatisfying(
        RunOutcome.Completed.class,
        done -> assertThat(done.value()).isEqualTo(done.token().fence()));
    assertThat(store.status(key, "app").state()).isEqualTo(LeaseStatus.State.FREE);
  }

  @Test
  void runExclusiveDoesNotStartWhenBusy() {
    acquire();
    AtomicInteger ran = new AtomicInteger();
    RunOutcome<Integer> outcome =
        other.runExclusive(AcquireRequest.of(key, "acct"), lease -> ran.incrementAndGet());
    assertThat((Object) outcome).isInstanceOf(RunOutcome.NotAcquired.class);
    assertThat(ran).hasValue(0);
  }

  @Test
  void runExclusiveRethrowsWorkFailuresAndReleases() {
    assertThatThrownBy(
            () ->
                store.runExclusive(
                    AcquireRequest.of(key, "acct"),
                    lease -> {
                      throw new java.io.IOException("disk full");
                    }))
        .isInstanceOf(LeaseWorkException.class)
        .hasCauseInstanceOf(java.io.IOException.class);
    assertThat(store.status(key, "app").state()).isEqualTo(LeaseStatus.State.FREE);
  }

  @Test
  void closeStopsKeptRunsReleasesTheirLeasesAndItsThreads() throws Exception {
    Lease lease = acquire().keepAlive();
    assertThat(keeperThreads()).isPositive();
    store.close();
    assertThat(lease.loss().orElseThrow().reason()).isEqualTo(LeaseLoss.Reason.STORE_CLOSED);
    assertThat(other.status(key, "app").state()).isEqualTo(LeaseStatus.State.FREE);
    assertThatThrownBy(() -> store.tryAcquire(key, "acct")).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> store.status(key, "app")).isInstanceOf(IllegalStateException.class);
    store.close(); // idempotent
    other.close();
    assertThat(keeperThreads()).isZero();
  }

  private static long keeperThreads() {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.getName().startsWith("leasehold-keeper-") && t.isAlive())
        .count();
  }
}
