package io.leasehold.lease.acquire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.leasehold.fencing.LeaseKey;
import io.leasehold.lease.AccessPolicy;
import io.leasehold.lease.AcquireRequest;
import io.leasehold.lease.AcquireResult;
import io.leasehold.lease.Lease;
import io.leasehold.lease.LeaseStatus;
import io.leasehold.lease.LeaseStore;
import io.leasehold.lease.LeaseStoreBuilder;
import io.leasehold.lease.LeaseWatcher;
import io.leasehold.lease.StoreInternals;
import io.leasehold.lease.support.LeaseDatabase;
import io.leasehold.lease.support.StatusPolling;
import io.leasehold.testing.TestDatabaseExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The waiting acquire: it wakes on a release (local, or heard by a watcher), on the holder's expiry
 * by database time, and ends on its deadline, an interrupt, a cancel or a closed store.
 *
 * <p>Where a test proves that a wake-up worked, the store's poll ceiling is an hour, so its first
 * pause is 72 s: only the wake-up can end the wait before {@code maxWait}, so a broken wake-up
 * fails the test instead of being hidden by polling.
 */
@Timeout(120)
class AcquireWaitTest {
  @RegisterExtension static final TestDatabaseExtension db = LeaseDatabase.extension();

  private static final ExecutorService pool = Executors.newFixedThreadPool(4);
  private static final AtomicInteger keys = new AtomicInteger();

  @AfterAll
  static void stopPool() {
    pool.shutdownNow();
  }

  private static LeaseKey newKey() {
    return LeaseKey.of("acct", "wait-" + keys.incrementAndGet());
  }

  private static LeaseStoreBuilder builder() {
    return LeaseStore.builder(db.dataSource()).accessPolicy(AccessPolicy.allowAll());
  }

  private static LeaseStore pollingHourly() {
    return builder().ttl(Duration.ofSeconds(60)).waitPollCeiling(Duration.ofHours(1)).build();
  }

  private static Lease held(LeaseStore store, LeaseKey key) {
    return ((AcquireResult.Acquired) store.tryAcquire(key, "acct")).lease();
  }

  private static void awaitWaiters(LeaseStore store, int n) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (StoreInternals.waiterCount(store) < n) {
      assertThat(System.nanoTime()).as("%s waiters never enlisted", n).isLessThan(deadline);
      Thread.sleep(5);
    }
  }

  /** The same for a blocking wait on a thread of the test's and for {@code acquireAsync}. */
  @ParameterizedTest(name = "async: {0}")
  @ValueSource(booleans = {false, true})
  void aReleaseThroughTheStoreWakesTheWaiterAtOnce(boolean async) throws Exception {
    LeaseKey key = newKey();
    try (LeaseStore store = pollingHourly()) {
      Lease first = held(store, key);
      CompletableFuture<AcquireResult> waiting =
          async
              ? store.acquireAsync(AcquireRequest.of(key, "acct"), Duration.ofSeconds(50), pool)
              : CompletableFuture.supplyAsync(
                  () -> acquireUnchecked(store, key, Duration.ofSeconds(50)), pool);
      awaitWaiters(store, 1);
      assertThat(waiting).isNotDone();
      first.release();
      // The waiter's first pause is at least 25 s: only the wake-up can end it within 20 s.
      AcquireResult r = waiting.get(20, TimeUnit.SECONDS);
      assertThat(r)
          .isInstanceOfSatisfying(
              AcquireResult.Acquired.class,
              a -> assertThat(a.lease().fence()).isGreaterThan(first.fence()));
      if (!async) {
        // A blocking wait leaves the waiters before it returns; an asynchronous one right after
        // its future completes, which a caller of get() may see first.
        assertThat(StoreInternals.waiterCount(store)).isZero();
      }
    }
  }

  @Test
  void aReleaseInAnotherStoreIsHeardThroughTheWatcher() throws Exception {
    LeaseKey key = newKey();
    try (LeaseStore publisher = builder().ttl(Duration.ofSeconds(60)).notifyChanges(true).build();
        LeaseStore waiter = pollingHourly();
        LeaseWatcher watcher = LeaseWatcher.start(waiter, db.dataSource())) {
      Lease first = held(publisher, key);
      CompletableFuture<AcquireResult> waiting =
          CompletableFuture.supplyAsync(
              () -> acquireUnchecked(waiter, key, Duration.ofSeconds(50)), pool);
      awaitWaiters(waiter, 1);
      awaitListening(watcher);
      first.release();
      // The publisher's lease would last 60 s, and the waiter's first pause is at least 25 s: only
      // the notification can wake it within 20 s.
      assertThat(waiting.get(20, TimeUnit.SECONDS)).isInstanceOf(AcquireResult.Acquired.class);
    }
  }

  @Test
  void aWaiterTriesAgainWhenTheHoldersLeaseRunsOutByDatabaseTime() throws Exception {
    LeaseKey key = newKey();
    try (LeaseStore shortLived = builder().ttl(Duration.ofMillis(800)).build();
        LeaseStore waiter = pollingHourly()) {
      Lease first = held(shortLived, key); // not kept alive: it expires, never released
      AcquireResult r = waiter.acquire(key, "acct", Duration.ofSeconds(20));
      assertThat(r)
          .isInstanceOfSatisfying(
              AcquireResult.Acquired.class,
              a -> assertThat(a.lease().fence()).isGreaterThan(first.fence()));
    }
  }

  @Test
  void theWaitEndsWithTheLastRefusal() throws Exception {
    LeaseKey key = newKey();
    try (LeaseStore store = builder().build()) {
      Lease holder = held(store, key);
      AcquireResult r = store.acquire(key, "acct", Duration.ofMillis(300));
      assertThat(r)
          .isInstanceOfSatisfying(
              AcquireResult.Busy.class,
              b -> assertThat(b.status().owner().orElseThrow().fence()).isEqualTo(holder.fence()));
      assertThat(store.acquire(key, "acct", Duration.ZERO)).isInstanceOf(AcquireResult.Busy.class);
      assertThat(StoreInternals.waiterCount(store)).isZero();
    }
  }

  @Test
  void anInterruptEndsTheWait() throws Exception {
    LeaseKey key = newKey();
    try (LeaseStore store = pollingHourly()) {
      held(store, key);
      AtomicReference<Throwable> thrown = new AtomicReference<>();
      Thread t =
          new Thread(
              () -> {
                try {
                  store.acquire(key, "acct", Duration.ofSeconds(50));
                } catch (Throwable e) {
                  thrown.set(e);
                }
              });
      t.start();
      awaitWaiters(store, 1);
      t.interrupt();
      t.join(20_000);
      assertThat(t.isAlive()).isFalse();
      assertThat(thrown.get()).isInstanceOf(InterruptedException.class);
      assertThat(StoreInternals.waiterCount(store)).isZero();
    }
  }

  @Test
  void closingTheStoreEndsItsWaits() throws Exception {
    LeaseKey key = newKey();
    LeaseStore store = pollingHourly();
    // Held through another store, so that closing this one releases nothing: a try in flight at
    // the close is refused, and the next one learns that the store closed.
    LeaseStore holder = pollingHourly();
    held(holder, key);
    CompletableFuture<AcquireResult> blocking =
        CompletableFuture.supplyAsync(
            () -> acquireUnchecked(store, key, Duration.ofSeconds(50)), pool);
    CompletableFuture<AcquireResult> async =
        store.acquireAsync(AcquireRequest.of(key, "acct"), Duration.ofSeconds(50), pool);
    awaitWaiters(store, 2);
    store.close();
    assertThatThrownBy(() -> blocking.get(20, TimeUnit.SECONDS))
        .hasCauseInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> async.get(20, TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class)
        .hasCauseInstanceOf(IllegalStateException.class);
    holder.close();
  }

  /**
   * A release heard while an asynchronous wait's try was between reading its wake-up flag and
   * handing its pause to the timer found no pending pause to cut short: the wake-up was lost and
   * the wait slept out its whole pause (here up to the holder's 60 s TTL). The timer below makes
   * the release land in exactly that window, on the try's own thread.
   */
  @Test
  void aReleaseWhileATryIsSchedulingItsPauseStillWakesTheWaiter() throws Exception {
    LeaseKey key = newKey();
    String tryThread = "async-try-" + key.sessionId();
    ExecutorService tries = Executors.newSingleThreadExecutor(r -> new Thread(r, tryThread));
    AtomicReference<Runnable> inTheWindow = new AtomicReference<>();
    ScheduledThreadPoolExecutor timer =
        new ScheduledThreadPoolExecutor(1) {
          @Override
          public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
            if (Thread.currentThread().getName().equals(tryThread) && unit.toSeconds(delay) >= 1) {
              Runnable r = inTheWindow.getAndSet(null);
              if (r != null) {
                r.run();
              }
            }
            return super.schedule(command, delay, unit);
          }
        };
    try (LeaseStore store =
        builder()
            .ttl(Duration.ofSeconds(60))
            .waitPollCeiling(Duration.ofHours(1))
            .scheduler(timer)
            .build()) {
      Lease first = held(store, key);
      inTheWindow.set(() -> first.release());
      CompletableFuture<AcquireResult> f =
          store.acquireAsync(AcquireRequest.of(key, "acct"), Duration.ofSeconds(50), tries);

      assertThat(f.get(20, TimeUnit.SECONDS)).isInstanceOf(AcquireResult.Acquired.class);
      assertThat(inTheWindow).as("the release ran in the window").hasValue(null);
    } finally {
      tries.shutdownNow();
      timer.shutdownNow();
    }
  }

  @Test
  void cancellingStopsTheTriesAndReleasesALeaseGrantedMeanwhile() throws Exception {
    LeaseKey key = newKey();
    ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1);
    timer.setRemoveOnCancelPolicy(true);
    try (LeaseStore store = builder().scheduler(timer).build()) {
      // Cancelled while waiting: its pending try is withdrawn, and nothing wakes it any more.
      Lease first = held(store, key);
      AtomicInteger tries = new AtomicInteger();
      CompletableFuture<AcquireResult> f =
          store.acquireAsync(
              AcquireRequest.of(key, "acct"),
              Duration.ofSeconds(30),
              r -> {
                tries.incrementAndGet();
                pool.execute(r);
              });
      awaitWaiters(store, 1);
      f.cancel(true);
      assertThat(StoreInternals.waiterCount(store)).isZero();
      assertThat(timer.getQueue()).as("the pause before the next try").isEmpty();
      int after = tries.get();
      first.release(); // would wake a waiter that was still there
      assertThat(tries.get()).isEqualTo(after);

      // Cancelled while a try that is granted is in flight: the lease is released, not leaked.
      AtomicReference<CompletableFuture<AcquireResult>> self = new AtomicReference<>();
      CompletableFuture<AcquireResult> g =
          store.acquireAsync(
              AcquireRequest.of(key, "acct"),
              Duration.ofSeconds(30),
              r ->
                  pool.execute(
                      () -> {
                        while (self.get() == null) {
                          Thread.onSpinWait();
                        }
                        self.get().cancel(true);
                        r.run();
                      }));
      self.set(g);
      assertThatThrownBy(() -> g.get(20, TimeUnit.SECONDS))
          .isInstanceOf(CancellationException.class);
      // Leaked, the lease would hold the key for its 30 s.
      StatusPolling.awaitStatus(
          store, key, s -> s.state() == LeaseStatus.State.FREE, Duration.ofSeconds(10));
      assertThat(store.tryAcquire(key, "acct")).isInstanceOf(AcquireResult.Acquired.class);
    } finally {
      timer.shutdownNow();
    }
  }

  @Test
  void sixteenWaitersEachGetTheKeyOnceAndNeverTogether() throws Exception {
    LeaseKey key = newKey();
    try (LeaseStore store = builder().build()) {
      AtomicInteger holding = new AtomicInteger();
      AtomicInteger overlaps = new AtomicInteger();
      List<Long> fences = java.util.Collections.synchronizedList(new ArrayList<>());
      ExecutorService waiters = Executors.newFixedThreadPool(16);
      try {
        List<CompletableFuture<AcquireResult>> results = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
          results.add(
              CompletableFuture.supplyAsync(
                  () -> {
                    AcquireResult r = acquireUnchecked(store, key, Duration.ofSeconds(60));
                    if (r instanceof AcquireResult.Acquired a) {
                      if (holding.incrementAndGet() > 1) {
                        overlaps.incrementAndGet();
                      }
                      fences.add(a.lease().fence());
                      holding.decrementAndGet();
                      a.lease().release();
                    }
                    return r;
                  },
                  waiters));
        }
        for (CompletableFuture<AcquireResult> r : results) {
          assertThat(r.get(90, TimeUnit.SECONDS)).isInstanceOf(AcquireResult.Acquired.class);
        }
      } finally {
        waiters.shutdownNow();
      }
      assertThat(overlaps.get()).isZero();
      assertThat(fences).hasSize(16).doesNotHaveDuplicates();
    }
  }

  @Test
  void badArgumentsAreRefusedBeforeAnyTry() {
    LeaseKey key = newKey();
    try (LeaseStore store = builder().build()) {
      AcquireRequest req = AcquireRequest.of(key, "acct");
      assertThatThrownBy(() -> store.acquire(null, Duration.ofSeconds(1)))
          .isInstanceOf(IllegalArgumentException.class);
      assertThatThrownBy(() -> store.acquire(req, null))
          .isInstanceOf(IllegalArgumentException.class);
      assertThatThrownBy(() -> store.acquire(req, Duration.ofMillis(-1)))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("maxWait");
      assertThatThrownBy(() -> store.acquire(req, Duration.ofDays(2)))
          .isInstanceOf(IllegalArgumentException.class);
      assertThatThrownBy(() -> store.acquireAsync(req, Duration.ofSeconds(1), null))
          .isInstanceOf(IllegalArgumentException.class);
      assertThatThrownBy(
              () -> LeaseStore.builder(db.dataSource()).waitPollCeiling(Duration.ofMillis(1)))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("waitPollCeiling");
      assertThat(store.status(key, "acct").state()).isEqualTo(LeaseStatus.State.FREE);
      assertThat(store.status(key, "acct").owner()).isEmpty();
    }
  }

  private static AcquireResult acquireUnchecked(LeaseStore store, LeaseKey key, Duration maxWait) {
    try {
      return store.acquire(key, "acct", maxWait);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private static void awaitListening(LeaseWatcher watcher) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (!watcher.isListening()) {
      assertThat(System.nanoTime()).as("the watcher never listened").isLessThan(deadline);
      Thread.sleep(5);
    }
  }
}
