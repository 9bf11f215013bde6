package io.leasehold.shedlock;

import java.util.ArrayDeque;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import net.javacrumbs.shedlock.core.DefaultLockingTaskExecutor;
import net.javacrumbs.shedlock.core.LockAssert;

/**
 * Which lock {@link FencedLock#current()} answers on a thread. Each lock the provider hands out
 * opens a {@link Binding} on the thread that took it; the binding belongs to the lock (and to each
 * lock {@code extend} returns after it), not to the thread: unlocking from any thread closes it,
 * and an extension from any thread (ShedLock's {@code KeepAliveLockProvider} extends on its
 * scheduler's thread) moves it to the new lock without binding anything to the extending thread.
 *
 * <p>A thread keeps only a stack of bindings; closed ones are dropped when it next looks. ShedLock
 * runs a task between {@code lock} and {@code unlock} on one thread, and its executor marks that
 * span ({@link LockAssert}). A binding still open on a thread that ShedLock says runs no locked
 * task belongs to a task that ended without unlocking (a lock taken with {@code LockProvider.lock}
 * and forgotten, an unlock handed to another thread that has not run yet): it is never handed to
 * whatever the pooled thread runs next.
 */
final class TaskLocks {
  /** The bindings opened on this thread, newest last; null when there are none. */
  private static final ThreadLocal<ArrayDeque<Binding>> BOUND = new ThreadLocal<>();

  private TaskLocks() {}

  /**
   * A task's hold on its chain of locks: the lock the provider handed out, then each lock extend
   * returned. Null once the chain's last lock was unlocked.
   */
  static final class Binding {
    private final AtomicReference<FencedLock> lock = new AtomicReference<>();

    /** Follows an extension: {@code next} replaces {@code previous} (from any thread). */
    void extended(FencedLock previous, FencedLock next) {
      lock.compareAndSet(previous, next);
    }

    /**
     * Closes the binding once {@code unlocked}, its chain's last lock, is unlocked (from any
     * thread).
     */
    void unlocked(FencedLock unlocked) {
      lock.compareAndSet(unlocked, null);
    }

    private boolean isClosed() {
      return lock.get() == null;
    }
  }

  /**
   * Opens {@code binding}, new, for {@code lock} on the calling thread. A lock taken while ShedLock
   * runs no locked task on this thread starts a new task here, so bindings still open on the thread
   * belong to tasks that ended without unlocking: they are dropped (their locks stay usable
   * directly).
   */
  static void open(Binding binding, FencedLock lock) {
    binding.lock.set(lock);
    if (!takenByShedLocksExecutor()) {
      // A lock taken with LockProvider.lock() directly is used through the object returned; it is
      // never a task's current() lock. (Bound on its thread, a direct lock that was never unlocked
      // was handed to the next task there that another provider's executor ran: ShedLock's thread
      // state says a locked task runs, not whose lock it is.)
      return;
    }
    ArrayDeque<Binding> bound = BOUND.get();
    if (bound == null) {
      bound = new ArrayDeque<>();
      BOUND.set(bound);
    } else {
      bound.removeIf(Binding::isClosed);
      if (!bound.isEmpty() && !inLockedTask()) {
        bound.clear();
      }
    }
    bound.addLast(binding);
  }

  /** See {@link FencedLock#current()}. */
  static Optional<FencedLock> current() {
    ArrayDeque<Binding> bound = BOUND.get();
    if (bound == null) {
      return Optional.empty();
    }
    bound.removeIf(Binding::isClosed);
    if (bound.isEmpty()) {
      BOUND.remove();
      return Optional.empty();
    }
    if (!inLockedTask()) {
      String names =
          bound.stream()
              .map(b -> b.lock.get())
              .filter(l -> l != null)
              .map(l -> "'" + l.lease().key().sessionId() + "'")
              .collect(Collectors.joining(", "));
      // Dropped so that the thread's next task starts clean; the locks themselves are untouched.
      BOUND.remove();
      throw new IllegalStateException(
          "lock(s) "
              + names
              + " were taken on this thread and never unlocked, and ShedLock runs no locked task on"
              + " it now: they belong to a task that has ended, and their fence is not handed to"
              + " another task. Run locked work through ShedLock (@SchedulerLock or a"
              + " LockingTaskExecutor, which unlocks in a finally block); a lock taken with"
              + " LockProvider.lock() directly is used and unlocked through the object it returned");
    }
    FencedLock innermost = bound.peekLast().lock.get();
    // Unlocked on another thread since the pruning above: the thread holds nothing newer then.
    return innermost != null ? Optional.of(innermost) : current();
  }

  /**
   * Whether the lock being taken is taken by ShedLock's own executor, as {@code @SchedulerLock} and
   * every {@code LockingTaskExecutor} of ShedLock's take theirs: the one case in which ShedLock
   * then runs a task under this lock on this thread and unlocks it in a finally block.
   */
  private static boolean takenByShedLocksExecutor() {
    String executor = DefaultLockingTaskExecutor.class.getName();
    return StackWalker.getInstance()
        .walk(frames -> frames.anyMatch(f -> f.getClassName().equals(executor)));
  }

  /**
   * Whether ShedLock's executor is running a locked task on this thread. {@link
   * LockAssert#assertLocked()} is its only public view of that, and answers by throwing.
   */
  private static boolean inLockedTask() {
    try {
      LockAssert.assertLocked();
      return true;
    } catch (IllegalStateException notLocked) {
      // The answer "no locked task", not a failure.
      return false;
    }
  }
}
