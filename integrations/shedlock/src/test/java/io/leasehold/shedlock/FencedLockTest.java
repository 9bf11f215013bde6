package io.leasehold.shedlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.InMemoryFenceGuard;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.LeaseLostException;
import io.leasehold.fencing.StaleFenceException;
import io.leasehold.fencing.TokenVerifier;
import io.leasehold.lease.AccessPolicy;
import io.leasehold.lease.LeaseSchema;
import io.leasehold.lease.LeaseStatus;
import io.leasehold.lease.LeaseStore;
import io.leasehold.testing.TestDatabaseExtension;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import net.javacrumbs.shedlock.core.DefaultLockingTaskExecutor;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockExtender;
import net.javacrumbs.shedlock.core.LockingTaskExecutor;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What the provider adds to ShedLock: a job paused past {@code lockAtMostFor}, whose lock another
 * node then took, is refused by a guard, both through its lock and with a token it kept; and the
 * lock's lengths, checked alike by {@code lock} and {@code extend} (issue 46).
 */
class FencedLockTest {
  @RegisterExtension
  static final TestDatabaseExtension db =
      TestDatabaseExtension.withTemplate("shedlock", ds -> LeaseSchema.defaults().apply(ds));

  private static LockConfiguration config(String name, Duration atMost) {
    return new LockConfiguration(Instant.now(), name, atMost, Duration.ZERO);
  }

  /** Waits, at most 20 s, until {@code key}'s lock ends by the database clock. */
  private static void awaitFreeByTheDatabaseClock(LeaseStore store, LeaseKey key)
      throws InterruptedException {
    long bound = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    while (store.status(key, "scheduler").state() != LeaseStatus.State.FREE) {
      assertThat(System.nanoTime() - bound)
          .as("the lock expires by the database clock")
          .isNegative();
      Thread.sleep(20);
    }
  }

  /** A store of the test's own on the test database, open to every caller. */
  private static LeaseStore openStore() {
    return LeaseStore.builder(db.dataSource()).accessPolicy(AccessPolicy.allowAll()).build();
  }

  @Test
  void aPausedJobWhoseLockWasTakenOverIsRefusedByTheGuard() throws Exception {
    try (LeaseStore store = openStore()) {
      LeaseholdLockProvider provider = LeaseholdLockProvider.of(store, "scheduler");
      InMemoryFenceGuard guard =
          InMemoryFenceGuard.builder().verifier(TokenVerifier.trustEveryWriter()).build();
      List<String> report = new ArrayList<>();

      FencedLock paused =
          (FencedLock)
              provider.lock(config("nightly-report", Duration.ofMillis(300))).orElseThrow();
      FencingToken kept = paused.token();
      guard.runFenced(paused, () -> report.add("first run, part 1"));

      // The first node stalls; by the database clock its lock ends, and another node takes it.
      LeaseKey key = LeaseKey.of("scheduler", "nightly-report");
      awaitFreeByTheDatabaseClock(store, key);
      FencedLock next =
          (FencedLock) provider.lock(config("nightly-report", Duration.ofMinutes(5))).orElseThrow();
      assertThat(next.token().fence()).isGreaterThan(kept.fence());
      guard.runFenced(next, () -> report.add("second run"));

      // The first node wakes: through its lock it is refused locally, with its kept token by the
      // guard.
      assertThatThrownBy(() -> guard.runFenced(paused, () -> report.add("first run, part 2")))
          .isInstanceOf(LeaseLostException.class);
      assertThatThrownBy(() -> guard.runFenced(kept, () -> report.add("first run, part 2")))
          .isInstanceOf(StaleFenceException.class);
      assertThat(report).containsExactly("first run, part 1", "second run");
      next.unlock();
      paused.unlock(); // as ShedLock's executor does in its finally block: the lease had ended
      assertThat(FencedLock.current()).isEmpty();
    }
  }

  @Test
  void aTaskFindsItsOwnLockThroughNestingAndExtensionUntilItIsUnlocked() throws Exception {
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try (LeaseStore store = openStore()) {
      LockingTaskExecutor executor =
          new DefaultLockingTaskExecutor(LeaseholdLockProvider.of(store, "scheduler"));
      List<String> seen = new ArrayList<>();
      pool.submit(
              () -> {
                assertThat(FencedLock.current()).isEmpty();
                executor.executeWithLock(
                    (Runnable)
                        () -> {
                          FencedLock outer = FencedLock.current().orElseThrow();
                          seen.add(outer.lease().key().sessionId());
                          executor.executeWithLock(
                              (Runnable)
                                  () -> {
                                    FencedLock inner = FencedLock.current().orElseThrow();
                                    seen.add(inner.lease().key().sessionId());
                                    LockExtender.extendActiveLock(
                                        Duration.ofSeconds(60), Duration.ZERO);
                                    FencedLock extended = FencedLock.current().orElseThrow();
                                    assertThat(extended).isNotSameAs(inner);
                                    assertThat(extended.lease()).isSameAs(inner.lease());
                                    seen.add("extended " + extended.lease().key().sessionId());
                                  },
                              config("inner", Duration.ofSeconds(30)));
                          assertThat(FencedLock.current()).containsSame(outer);
                          seen.add("back to " + outer.lease().key().sessionId());
                        },
                    config("outer", Duration.ofSeconds(30)));
                assertThat(FencedLock.current()).isEmpty();
                return null;
              })
          .get(60, TimeUnit.SECONDS);
      assertThat(seen).containsExactly("outer", "inner", "extended inner", "back to outer");
      assertThat(store.status(LeaseKey.of("scheduler", "inner"), "scheduler").state())
          .isEqualTo(LeaseStatus.State.FREE);
      assertThat(store.status(LeaseKey.of("scheduler", "outer"), "scheduler").state())
          .isEqualTo(LeaseStatus.State.FREE);
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void anExtendWithLockAtLeastForLongerThanLockAtMostForIsRefusedAndDoesNotHoldTheKeyForTenYears()
      throws Throwable {
    try (LeaseStore store = openStore()) {
      LeaseholdLockProvider provider = LeaseholdLockProvider.of(store, "scheduler");
      LeaseKey key = LeaseKey.of("scheduler", "ten-years");
      new DefaultLockingTaskExecutor(provider)
          .executeWithLock(
              (LockingTaskExecutor.Task)
                  () -> {
                    FencedLock lock = FencedLock.current().orElseThrow();
                    Instant expiry = lock.lease().expiresAt();
                    // ShedLock's own rule, lockAtLeastFor <= lockAtMostFor, as lock() has it from
                    // LockConfiguration.
                    assertThatThrownBy(
                            () ->
                                LockExtender.extendActiveLock(
                                    Duration.ofSeconds(1), Duration.ofDays(3650)))
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining(
                            "lockAtLeastFor must be between zero and lockAtMostFor");
                    assertThatThrownBy(
                            () -> lock.extend(Duration.ofSeconds(1), Duration.ofSeconds(-1)))
                        .isInstanceOf(IllegalArgumentException.class);
                    // Refused, so nothing changed: the same lock, held to the same expiry.
                    assertThat(FencedLock.current()).containsSame(lock);
                    assertThat(lock.lease().expiresAt()).isEqualTo(expiry);
                    assertThat(store.status(key, "scheduler").owner().orElseThrow().expiresAt())
                        .isEqualTo(expiry);
                  },
              new LockConfiguration(
                  Instant.now(), "ten-years", Duration.ofSeconds(30), Duration.ZERO));
      // The executor unlocked the lock it still held; lockAtLeastFor zero: free at once.
      assertThat(store.status(key, "scheduler").state()).isEqualTo(LeaseStatus.State.FREE);
    }
  }

  @Test
  void anExtendPastTwentyFourHoursIsRefusedAndLeavesTheLockToUnlock() throws Throwable {
    try (LeaseStore store = openStore()) {
      LeaseholdLockProvider provider = LeaseholdLockProvider.of(store, "scheduler");
      LeaseKey key = LeaseKey.of("scheduler", "a-day-and-more");
      Duration atLeast = Duration.ofSeconds(20);
      AtomicReference<Instant> expiry = new AtomicReference<>();
      // Inside a task, as ShedLock's executor runs it: it unlocks in its finally block whatever
      // the task did, and an unlock that throws there would replace the task's own outcome.
      new DefaultLockingTaskExecutor(provider)
          .executeWithLock(
              (LockingTaskExecutor.Task)
                  () -> {
                    FencedLock lock = FencedLock.current().orElseThrow();
                    expiry.set(lock.lease().expiresAt());
                    assertThatThrownBy(
                            () ->
                                LockExtender.extendActiveLock(Duration.ofHours(25), Duration.ZERO))
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("PT24H");
                    assertThatThrownBy(() -> lock.extend(Duration.ofHours(25), Duration.ZERO))
                        .isInstanceOf(IllegalArgumentException.class);
                    assertThat(FencedLock.current()).containsSame(lock);
                    assertThat(lock.token().fence()).isEqualTo(lock.lease().fence());
                    LeaseStatus held = store.status(key, "scheduler");
                    assertThat(held.state()).isEqualTo(LeaseStatus.State.HELD);
                    assertThat(held.owner().orElseThrow().expiresAt()).isEqualTo(expiry.get());
                  },
              new LockConfiguration(
                  Instant.now(), "a-day-and-more", Duration.ofSeconds(30), atLeast));
      // Unlocked by the executor, holding the key for lockAtLeastFor from the lock's start.
      LeaseStatus draining = store.status(key, "scheduler");
      assertThat(draining.state()).isEqualTo(LeaseStatus.State.DRAINING);
      assertThat(draining.acquirableAt())
          .isEqualTo(expiry.get().minus(Duration.ofSeconds(30)).plus(atLeast));
    }
  }

  @Test
  void anExtendOfALockThatExpiredAnswersEmptyAndTheLockStillUnlocks() throws Exception {
    try (LeaseStore store = openStore()) {
      LeaseholdLockProvider provider = LeaseholdLockProvider.of(store, "scheduler");
      FencedLock lock =
          (FencedLock) provider.lock(config("short", Duration.ofMillis(1))).orElseThrow();
      LeaseKey key = LeaseKey.of("scheduler", "short");
      awaitFreeByTheDatabaseClock(store, key);
      assertThat(lock.extend(Duration.ofSeconds(10), Duration.ZERO)).isEmpty();
      lock.unlock(); // as ShedLock's executor does after LockExtender's
      // LockCanNotBeExtendedException
      assertThatThrownBy(lock::unlock)
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("already unlocked");
    }
  }

  @Test
  void aLockIsRefusedForANameThatIsNotAValidKeyAndForLengthsOutOfRange() {
    try (LeaseStore store = openStore()) {
      LeaseholdLockProvider provider = LeaseholdLockProvider.of(store, "scheduler");
      assertThatThrownBy(() -> provider.lock(config("x".repeat(200), Duration.ofSeconds(1))))
          .isInstanceOf(IllegalArgumentException.class);
      assertThatThrownBy(() -> provider.lock(config("too-long", Duration.ofDays(3))))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("lockAtMostFor must be between PT0.001S and PT24H");
      assertThatThrownBy(() -> provider.lock(config("zero", Duration.ZERO)))
          .isInstanceOf(IllegalArgumentException.class);
      Optional<SimpleLock> ok = provider.lock(config("fine", Duration.ofSeconds(1)));
      assertThat(ok).isPresent();
      ok.get().unlock();
      assertThatThrownBy(() -> LeaseholdLockProvider.of(store, "", "x"))
          .isInstanceOf(IllegalArgumentException.class);
    }
  }
}
