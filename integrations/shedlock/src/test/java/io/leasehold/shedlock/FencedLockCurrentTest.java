package io.leasehold.shedlock;

import static io.leasehold.shedlock.TestThreads.WAIT_SECONDS;
import static io.leasehold.shedlock.TestThreads.await;
import static io.leasehold.shedlock.TestThreads.on;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.leasehold.fencing.Fenced;
import io.leasehold.fencing.InMemoryFenceGuard;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.TokenVerifier;
import io.leasehold.lease.AccessPolicy;
import io.leasehold.lease.LeaseSchema;
import io.leasehold.lease.LeaseStatus;
import io.leasehold.lease.LeaseStore;
import io.leasehold.testing.TestDatabaseExtension;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import net.javacrumbs.shedlock.core.DefaultLockingTaskExecutor;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockExtender;
import net.javacrumbs.shedlock.core.LockingTaskExecutor;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.support.KeepAliveLockProvider;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 46: {@link FencedLock#current()} on pooled threads, driven the ways ShedLock drives a
 * provider ({@link DefaultLockingTaskExecutor}, {@link KeepAliveLockProvider}, {@link
 * LockExtender}) and the ways it is misused (an unlock on another thread, a lock never unlocked). A
 * task's lock is its own: never another task's, whatever ran on the thread before. Real threads,
 * latches and barriers; no sleeps.
 */
class FencedLockCurrentTest {
  @RegisterExtension
  static final TestDatabaseExtension db =
      TestDatabaseExtension.withTemplate("shedlock", ds -> LeaseSchema.defaults().apply(ds));

  private final LeaseStore store =
      LeaseStore.builder(db.dataSource()).accessPolicy(AccessPolicy.allowAll()).build();
  private final LeaseholdLockProvider provider = LeaseholdLockProvider.of(store, "scheduler");
  private final LockingTaskExecutor executor = new DefaultLockingTaskExecutor(provider);
  private final InMemoryFenceGuard guard =
      InMemoryFenceGuard.builder().verifier(TokenVerifier.trustEveryWriter()).build();

  /** What the guard admitted, in order: each entry names the task and the fence it wrote under. */
  private final List<String> written = new CopyOnWriteArrayList<>();

  /** A pooled thread: the same thread runs one task after another. */
  private final ExecutorService pool = Executors.newSingleThreadExecutor();

  /** Another thread, for unlocks and extensions made away from the task's thread. */
  private final ExecutorService other = Executors.newSingleThreadExecutor();

  @AfterEach
  void close() {
    pool.shutdownNow();
    other.shutdownNow();
    store.close();
  }

  private static LockConfiguration config(String name, Duration atMost) {
    return new LockConfiguration(Instant.now(), name, atMost, Duration.ZERO);
  }

  /** Takes the lock {@code name} (at most 30 s) from the provider itself, on this thread. */
  private FencedLock lockDirectly(String name) {
    return (FencedLock) provider.lock(config(name, Duration.ofSeconds(30))).orElseThrow();
  }

  /**
   * Runs on the pooled thread a task that ShedLock's executor locks as {@code name}, and that
   * writes under its current lock.
   */
  private void lockedTaskWritesOnPool(String name) throws Exception {
    on(
        pool,
        () -> {
          executor.executeWithLock(
              (Runnable)
                  () -> assertThat(writeUnderCurrentLock("locked task")).isEqualTo("written"),
              config(name, Duration.ofSeconds(30)));
          return null;
        });
  }

  /** A task that writes under whatever {@code FencedLock.current()} gives it, as a job does. */
  private String writeUnderCurrentLock(String task) {
    try {
      Fenced lock = FencedLock.current().orElseThrow();
      guard.runFenced(lock, () -> written.add(task + " under fence " + lock.token().fence()));
      return "written";
    } catch (RuntimeException refused) {
      return "refused: " + refused;
    }
  }

  private LeaseStatus.State state(String name) {
    return store.status(LeaseKey.of("scheduler", name), "scheduler").state();
  }

  @Test
  void anUnlockOnAnotherThreadEndsTheTasksCurrentLockOnItsThread() throws Exception {
    FencedLock lock = on(pool, () -> lockDirectly("handed-over"));
    long fence = lock.token().fence();
    // Before the unlock runs, an unrelated task on the pooled thread is refused the lock.
    assertThat(on(pool, () -> writeUnderCurrentLock("unrelated task"))).startsWith("refused");

    FencedLock second = on(pool, () -> lockDirectly("handed-over-2"));
    on(
        other,
        () -> {
          second.unlock();
          return null;
        });
    // The lock's unlock, on another thread, ended it on the thread that took it.
    assertThat(on(pool, FencedLock::current)).isEmpty();
    assertThat(on(pool, () -> writeUnderCurrentLock("next task"))).startsWith("refused");
    assertThat(written).isEmpty();

    // A locked task on that thread gets its own lock, and writes under its own fence.
    lockedTaskWritesOnPool("own");
    assertThat(written).hasSize(1).noneMatch(w -> w.endsWith("fence " + fence));
    lock.unlock();
    assertThat(state("handed-over")).isEqualTo(LeaseStatus.State.FREE);
  }

  @Test
  void aTaskThatNeverUnlockedLendsItsLockToNoLaterTaskOnItsThread() throws Exception {
    FencedLock forgotten = on(pool, () -> lockDirectly("forgotten"));
    long fence = forgotten.token().fence();

    // The next task on the pooled thread runs under no lock: it finds none, and writes nothing.
    // (A lock taken with provider.lock() directly is never a task's current lock.)
    String refused = on(pool, () -> writeUnderCurrentLock("unrelated task"));
    assertThat(refused).contains("NoSuchElementException");
    assertThat(on(pool, FencedLock::current)).isEmpty(); // the lock itself untouched

    // Again, then a locked task: it sees its own lock, never the forgotten one.
    on(pool, () -> lockDirectly("forgotten-2"));
    lockedTaskWritesOnPool("locked");
    assertThat(on(pool, FencedLock::current)).isEmpty();

    // A locked task that throws is unlocked by ShedLock's executor: nothing is left on the thread.
    on(
        pool,
        () -> {
          assertThatThrownBy(
                  () ->
                      executor.executeWithLock(
                          (Runnable)
                              () -> {
                                assertThat(writeUnderCurrentLock("throwing task"))
                                    .isEqualTo("written");
                                throw new IllegalStateException("the job failed");
                              },
                          config("throws", Duration.ofSeconds(30))))
              .hasMessage("the job failed");
          return null;
        });
    assertThat(on(pool, FencedLock::current)).isEmpty();
    assertThat(state("throws")).isEqualTo(LeaseStatus.State.FREE);

    assertThat(written)
        .hasSize(2)
        .noneMatch(w -> w.startsWith("unrelated"))
        .noneMatch(w -> w.endsWith("fence " + fence));
    assertThat(forgotten.token().fence()).isEqualTo(fence); // still its holder's, to unlock
    forgotten.unlock();
  }

  @Test
  void anExtensionOnTheKeepAliveThreadMovesTheTasksLockAndBindsNothingToThatThread()
      throws Exception {
    ManualScheduler scheduler = new ManualScheduler();
    LockingTaskExecutor keptAlive =
        new DefaultLockingTaskExecutor(new KeepAliveLockProvider(provider, scheduler));
    CountDownLatch locked = new CountDownLatch(1);
    CountDownLatch extended = new CountDownLatch(1);
    AtomicReference<FencedLock> before = new AtomicReference<>();
    AtomicReference<FencedLock> after = new AtomicReference<>();
    try {
      var task =
          pool.submit(
              () -> {
                keptAlive.executeWithLock(
                    (Runnable)
                        () -> {
                          before.set(FencedLock.current().orElseThrow());
                          locked.countDown();
                          await(extended);
                          after.set(FencedLock.current().orElseThrow());
                          assertThat(writeUnderCurrentLock("kept-alive task")).isEqualTo("written");
                        },
                    config("kept-alive", Duration.ofSeconds(60)));
                return null;
              });
      await(locked);
      Instant expiry = before.get().lease().expiresAt();
      on(
          other,
          () -> {
            scheduler.extendNow(); // KeepAliveLockProvider extends here, on its own thread
            return null;
          });
      // The keep-alive thread, pooled too, holds no lock of the task's.
      assertThat(on(other, FencedLock::current)).isEmpty();
      extended.countDown();
      task.get(WAIT_SECONDS, TimeUnit.SECONDS);
    } finally {
      scheduler.shutdownNow();
    }
    // The task saw the extended lock: the same lease and fence, a later expiry.
    assertThat(after.get()).isNotSameAs(before.get());
    assertThat(after.get().lease()).isSameAs(before.get().lease());
    assertThat(written)
        .containsExactly("kept-alive task under fence " + before.get().lease().fence());
    // Unlocked by the executor on the task's thread: nothing is left on either thread.
    assertThat(on(pool, FencedLock::current)).isEmpty();
    assertThat(on(other, FencedLock::current)).isEmpty();
    assertThat(state("kept-alive")).isEqualTo(LeaseStatus.State.FREE);
  }

  @Test
  void anUnlockRacingAnExtendOnAnotherThreadEndsTheLockOnceAndLeavesNoLockOnEitherThread()
      throws Exception {
    for (int round = 0; round < 20; round++) {
      String name = "race-" + round;
      CyclicBarrier start = new CyclicBarrier(2);
      AtomicReference<FencedLock> lock = new AtomicReference<>();
      var unlocking =
          pool.submit(
              () -> {
                lock.set(lockDirectly(name));
                start.await(WAIT_SECONDS, TimeUnit.SECONDS);
                try {
                  lock.get().unlock();
                  return true;
                } catch (IllegalStateException alreadyExtended) {
                  return false;
                }
              });
      var extending =
          other.submit(
              () -> {
                start.await(WAIT_SECONDS, TimeUnit.SECONDS);
                try {
                  return lock.get().extend(Duration.ofSeconds(30), Duration.ZERO);
                } catch (IllegalStateException alreadyUnlocked) {
                  return Optional.<SimpleLock>empty();
                }
              });
      boolean unlocked = unlocking.get(WAIT_SECONDS, TimeUnit.SECONDS);
      Optional<SimpleLock> next = extending.get(WAIT_SECONDS, TimeUnit.SECONDS);
      assertThat(unlocked)
          .as("round %d: exactly one of unlock and extend ends the lock", round)
          .isNotEqualTo(next.isPresent());
      if (next.isPresent()) {
        on(
            other,
            () -> {
              next.get().unlock();
              return null;
            });
      }
      assertThat(on(pool, FencedLock::current)).as("round %d, the locking thread", round).isEmpty();
      assertThat(on(other, FencedLock::current)).as("round %d, the other thread", round).isEmpty();
      assertThat(state(name)).isEqualTo(LeaseStatus.State.FREE);
    }
  }
}
