package io.leasehold.lease.renew;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.LeaseLostException;
import io.leasehold.lease.AccessPolicy;
import io.leasehold.lease.AcquireRequest;
import io.leasehold.lease.AcquireResult;
import io.leasehold.lease.Lease;
import io.leasehold.lease.LeaseLoss;
import io.leasehold.lease.LeaseStatus;
import io.leasehold.lease.LeaseStore;
import io.leasehold.lease.LeaseStoreException;
import io.leasehold.lease.LeaseWorkException;
import io.leasehold.lease.RunOutcome;
import io.leasehold.lease.support.FakeTicker;
import io.leasehold.lease.support.LeaseDatabase;
import io.leasehold.lease.support.LockWaits;
import io.leasehold.lease.support.ManualScheduler;
import io.leasehold.testing.TestDatabaseExtension;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The keeper and the one-call form: CONTRACT C6 (stop on loss).
 *
 * <p>The keeper's time is a {@link FakeTicker} and its scheduler a {@link ManualScheduler}: a
 * renewal round or a deadline check happens exactly when a test advances the ticker, on the test's
 * thread. Leases last a minute in the database, so a stalled machine changes nothing; the rounds
 * the test makes are what the keeper does.
 */
class KeepAliveTest {
  @RegisterExtension static final TestDatabaseExtension db = LeaseDatabase.extension();

  private static final Duration TTL = Duration.ofSeconds(60);
  private static final AtomicInteger KEYS = new AtomicInteger();
  private FakeTicker ticker;
  private ManualScheduler keeperTime;
  private LeaseStore store;
  private LeaseStore other;
  private LeaseKey key;

  @BeforeEach
  void setUp() {
    ticker = new FakeTicker();
    keeperTime = new ManualScheduler(ticker);
    store =
        LeaseStore.builder(db.dataSource())
            .accessPolicy(AccessPolicy.allowAll())
            .ttl(TTL)
            .ticker(ticker)
            .scheduler(keeperTime)
            .build();
    other =
        LeaseStore.builder(db.dataSource()).accessPolicy(AccessPolicy.allowAll()).ttl(TTL).build();
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
            "UPDATE leasehold_lease SET expires_at = statement_timestamp() - interval '1 ms'"
                + " WHERE account_id = '"
                + key.accountId()
                + "' AND session_id = '"
                + key.sessionId()
                + "'");
    return ((AcquireResult.Acquired) other.tryAcquire(key, "acct")).lease();
  }

  private Instant expiresAt(LeaseKey k) {
    return other.status(k, "app").owner().orElseThrow().expiresAt();
  }

  @Test
  void keptLeaseOutlivesManyTtls() {
    Lease lease = acquire().keepAlive();
    Instant first = expiresAt(key);
    // Ten renew intervals: over three TTLs of keeper time. Without a renewal the local deadline
    // would pass after the first TTL and the watch would declare the lease lost.
    for (int i = 0; i < 10; i++) {
      keeperTime.advanceAndRun(store.renewInterval());
    }
    assertThat(lease.isLost()).isFalse();
    assertThat(expiresAt(key)).isAfter(first);
    assertThat(other.status(key, "app").owner().orElseThrow().runId()).isEqualTo(lease.runId());
    assertThat(store.keptLeaseCount()).isEqualTo(1);
  }

  @Test
  void keeperLagCountsFromTheStartAndFromEachRoundAndAnIdleRoundCounts() {
    assertThat(store.keeperLag()).isEmpty();
    Lease lease = acquire().keepAlive();
    // Counted from the keeper's start, so a first round that hangs shows as lag.
    assertThat(store.keeperLag()).hasValue(Duration.ZERO);
    ticker.advance(Duration.ofSeconds(3));
    assertThat(store.keeperLag()).hasValue(Duration.ofSeconds(3));
    keeperTime.advanceAndRun(store.renewInterval());
    assertThat(store.keeperLag()).hasValue(Duration.ZERO);
    lease.release();
    // Nothing to renew is a round done: an idle store does not read as lagging.
    keeperTime.advanceAndRun(store.renewInterval());
    keeperTime.advanceAndRun(Duration.ofMinutes(10));
    assertThat(store.keeperLag().orElseThrow()).isLessThan(store.renewInterval());
  }

  @Test
  void takeoverIsNoticedAtTheNextRenewalAndStopsTheRun() {
    Lease lease = acquire().keepAlive();
    AtomicInteger calls = new AtomicInteger();
    lease.onLost(loss -> calls.incrementAndGet());
    Lease rival = takeOver();
    assertThat(lease.isLost()).as("nothing is known before the next renewal").isFalse();

    keeperTime.advanceAndRun(store.renewInterval());
    LeaseLoss loss = lease.loss().orElseThrow();
    assertThat(loss.reason()).isEqualTo(LeaseLoss.Reason.RENEWAL_REFUSED);
    assertThat(calls).hasValue(1);
    assertThatThrownBy(lease::token).isInstanceOf(LeaseLostException.class);
    assertThat(store.keptLeaseCount()).isZero();
    assertThat(store.status(key, "app").owner().orElseThrow().runId()).isEqualTo(rival.runId());
  }

  @Test
  void aPassedLocalDeadlineIsALossWithoutAWordFromTheDatabase() {
    Lease lease = acquire().keepAlive();
    // The keeper's clock jumps past the deadline before any renewal ran (a process stalled for
    // a whole TTL): the watch runs first and declares the lease lost, though the database would
    // still renew it.
    keeperTime.advanceAndRun(TTL);
    assertThat(lease.loss().orElseThrow().reason()).isEqualTo(LeaseLoss.Reason.DEADLINE_PASSED);
    assertThatThrownBy(lease::token).isInstanceOf(LeaseLostException.class);
    assertThat(store.keptLeaseCount()).isZero();
  }

  @Test
  void failingRenewalIsALossEvenBeforeTheDatabaseSaysNo() throws Exception {
    Lease lease = acquire().keepAlive();
    // Holding the row lock makes the renewal hit lock_timeout.
    try (Connection side = LockWaits.lockRow(db, key)) {
      keeperTime.advanceAndRun(store.renewInterval());
      LeaseLoss loss = lease.loss().orElseThrow();
      assertThat(loss.reason()).isEqualTo(LeaseLoss.Reason.RENEWAL_FAILED);
      assertThat(loss.cause()).get().isInstanceOf(LeaseStoreException.class);
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
    Lease survivor =
        ((AcquireResult.Acquired) store.tryAcquire(otherKey, "acct")).lease().keepAlive();
    takeOver();
    keeperTime.advanceAndRun(store.renewInterval());
    assertThat(doomed.isLost()).isTrue();
    Instant before = expiresAt(otherKey);
    for (int i = 0; i < 4; i++) {
      keeperTime.advanceAndRun(store.renewInterval());
    }
    assertThat(survivor.isLost()).isFalse();
    assertThat(expiresAt(otherKey)).isAfter(before);
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
                keeperTime.advanceAndRun(store.renewInterval()); // the round that hears of it
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
    assertThat(outcome)
        .isInstanceOfSatisfying(
            RunOutcome.Lost.class,
            lost -> {
              assertThat(lost.loss().reason()).isEqualTo(LeaseLoss.Reason.RENEWAL_REFUSED);
              assertThat(((RunOutcome.Lost<?>) lost).failure())
                  .containsInstanceOf(InterruptedException.class);
            });
    assertThat(Thread.currentThread().isInterrupted()).isFalse();
  }

  @Test
  void runExclusiveCompletesAndReleases() {
    RunOutcome<Long> outcome =
        store.runExclusive(AcquireRequest.of(key, "acct"), lease -> lease.token().fence());
    assertThat(outcome)
        .isInstanceOfSatisfying(
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
    store.close();
    // A store with its own scheduler, whose threads close must stop.
    store =
        LeaseStore.builder(db.dataSource()).accessPolicy(AccessPolicy.allowAll()).ttl(TTL).build();
    Lease lease = acquire().keepAlive();
    assertThat(keeperThreads()).isPositive();
    store.close();
    assertThat(lease.loss().orElseThrow().reason()).isEqualTo(LeaseLoss.Reason.STORE_CLOSED);
    assertThat(other.status(key, "app").state()).isEqualTo(LeaseStatus.State.FREE);
    assertThatThrownBy(() -> store.tryAcquire(key, "acct"))
        .isInstanceOf(IllegalStateException.class);
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
