package io.leasehold.shedlock;

import io.leasehold.fencing.Fenced;
import io.leasehold.fencing.FencingToken;
import io.leasehold.lease.Lease;
import io.leasehold.lease.LeaseStore;
import io.leasehold.lease.RenewResult;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Optional;
import net.javacrumbs.shedlock.core.SimpleLock;

/**
 * A ShedLock lock that is a Leasehold lease, and so has a fencing token: pass it (it is {@link
 * Fenced}) to any Leasehold guard, and the job's writes are refused once a newer holder of the lock
 * name has written. Valid until unlocked or extended (then use the lock {@code extend} returned),
 * as ShedLock requires. Thread-safe: an unlock or extend from another thread (ShedLock's {@code
 * KeepAliveLockProvider} extends on its scheduler's thread) waits for one in progress.
 */
public final class FencedLock implements SimpleLock, Fenced {
  private enum State {
    HELD,
    UNLOCKED,
    EXTENDED
  }

  private final Lease lease;
  private final Instant heldFrom;
  private final Duration atLeastFor;

  /** The task's hold on this lock's chain, shared with the locks extend returns. */
  private final TaskLocks.Binding binding;

  /**
   * Serializes changes of {@link #state}, so that one unlock or extend ends a lock, a refused one
   * none.
   */
  private final Object transition = new Object();

  /** Written only under {@link #transition}. */
  private volatile State state = State.HELD;

  private FencedLock(
      Lease lease, Instant heldFrom, Duration atLeastFor, TaskLocks.Binding binding) {
    this.lease = lease;
    this.heldFrom = heldFrom;
    this.atLeastFor = atLeastFor;
    this.binding = binding;
  }

  /** A lock the provider hands out, bound to the calling thread's task. */
  static FencedLock taken(Lease lease, Duration atLeastFor) {
    TaskLocks.Binding binding = new TaskLocks.Binding();
    FencedLock lock = new FencedLock(lease, lease.acquiredAt(), atLeastFor, binding);
    TaskLocks.open(binding, lock);
    return lock;
  }

  /**
   * Checks a lock's two lengths, for {@link LeaseholdLockProvider#lock} and {@link #extend} alike:
   * {@code lockAtMostFor} from {@link LeaseStore#MIN_ONE_SHOT_TTL} to {@link LeaseStore#MAX_TTL},
   * {@code lockAtLeastFor} from zero to {@code lockAtMostFor} (ShedLock's own rule).
   *
   * @throws IllegalArgumentException if not
   */
  static void checkLengths(String name, Duration lockAtMostFor, Duration lockAtLeastFor) {
    if (lockAtMostFor == null || lockAtLeastFor == null) {
      throw new IllegalArgumentException(
          "lock '" + name + "': lockAtMostFor and lockAtLeastFor must not be null");
    }
    if (lockAtMostFor.compareTo(LeaseStore.MIN_ONE_SHOT_TTL) < 0
        || lockAtMostFor.compareTo(LeaseStore.MAX_TTL) > 0) {
      throw new IllegalArgumentException(
          "lock '"
              + name
              + "': lockAtMostFor must be between "
              + LeaseStore.MIN_ONE_SHOT_TTL
              + " and "
              + LeaseStore.MAX_TTL
              + " (the lengths of a one-shot lease), was "
              + lockAtMostFor);
    }
    if (lockAtLeastFor.isNegative() || lockAtLeastFor.compareTo(lockAtMostFor) > 0) {
      throw new IllegalArgumentException(
          "lock '"
              + name
              + "': lockAtLeastFor must be between zero and lockAtMostFor ("
              + lockAtMostFor
              + "), was "
              + lockAtLeastFor);
    }
  }

  /**
   * The lock of the task the current thread runs, the innermost if it holds several: inside a
   * method annotated {@code @SchedulerLock}, the method's own lock, whose fence its writes present.
   *
   * <pre>{@code
   * @Scheduled(fixedDelay = 60_000)
   * @SchedulerLock(name = "nightly-report", lockAtMostFor = "PT10M")
   * void report() {
   *   FencedLock lock = FencedLock.current().orElseThrow();
   *   files.write(lock, "scheduler/nightly-report/report.md", render());
   * }
   * }</pre>
   *
   * <p>The answer belongs to the task's lock, not to the thread: it follows the lock through {@code
   * extend} (from any thread, {@code KeepAliveLockProvider}'s included) and ends when the lock is
   * unlocked, from any thread. A task whose lock expired gets its own lock, whose writes are
   * refused, never another one. A task ShedLock runs unlocks in a {@code finally} block, even when
   * it throws; a lock that was never unlocked is not handed to the next task on the thread.
   *
   * @return the lock, or empty outside a locked task
   * @throws IllegalStateException if this thread holds a lock although ShedLock runs no locked task
   *     on it (a lock taken with {@code LockProvider.lock()} directly and never unlocked): the lock
   *     belongs to a task that ended, and is forgotten here, so the next call answers empty
   */
  public static Optional<FencedLock> current() {
    return TaskLocks.current();
  }

  /**
   * The lock's fencing token, while its lease is believed held.
   *
   * @return the token
   * @throws io.leasehold.fencing.LeaseLostException once the lock expired or was unlocked
   */
  @Override
  public FencingToken token() {
    return lease.token();
  }

  /**
   * The lease behind the lock, for its status and expiry.
   *
   * @return the lease
   */
  public Lease lease() {
    return lease;
  }

  /**
   * Releases the lock; the key stays unavailable until {@code lockAtLeastFor} after the lock (or
   * its last extension) started, by the database clock. After an {@code extend} that returned empty
   * or was refused, this lock is still the one to unlock.
   *
   * @throws IllegalStateException if this lock was already unlocked or extended
   */
  @Override
  public void unlock() {
    synchronized (transition) {
      ensureHeld("unlocked");
      state = State.UNLOCKED;
    }
    binding.unlocked(this);
    if (atLeastFor.isZero()) {
      lease.release();
    } else {
      // To the database's microseconds, so that lockAtLeastFor <= lockAtMostFor keeps the hold
      // within the lease's expiry, which releaseHolding requires.
      lease.releaseHolding(heldFrom.plus(atLeastFor).truncatedTo(ChronoUnit.MICROS));
    }
  }

  /**
   * Extends the lock to {@code lockAtMostFor} from the database's now. The lengths are checked as
   * the provider's {@code lock} checks them; a refused extend changes nothing.
   *
   * @param lockAtMostFor the new length, from now: from 1 ms to 24 h
   * @param lockAtLeastFor how long after now the key stays unavailable once unlocked: from zero to
   *     {@code lockAtMostFor}
   * @return the new lock, which replaces this one (also as the task's {@link #current()}); or empty
   *     if the lock had expired or been taken over, and then this lock stays as it was (its token
   *     refused, {@link #unlock()} still ends it)
   * @throws IllegalArgumentException if a length is null or out of range; this lock is unchanged
   * @throws IllegalStateException if this lock was already unlocked or extended, or the store is
   *     closed
   * @throws io.leasehold.lease.LeaseStoreException if the database failed (the lease is then lost;
   *     this lock still unlocks)
   */
  @Override
  public Optional<SimpleLock> extend(Duration lockAtMostFor, Duration lockAtLeastFor) {
    checkLengths(lease.key().sessionId(), lockAtMostFor, lockAtLeastFor);
    synchronized (transition) {
      ensureHeld("extended");
      RenewResult renewed = lease.renew(lockAtMostFor);
      if (!renewed.renewed()) {
        return Optional.empty();
      }
      FencedLock next =
          new FencedLock(lease, renewed.databaseNow().orElseThrow(), lockAtLeastFor, binding);
      state = State.EXTENDED;
      binding.extended(this, next);
      return Optional.of(next);
    }
  }

  private void ensureHeld(String what) {
    if (state != State.HELD) {
      throw new IllegalStateException(
          "lock "
              + lease.key().sessionId()
              + " cannot be "
              + what
              + ": it was already "
              + state.name().toLowerCase(java.util.Locale.ROOT)
              + " ("
              + lease
              + "); after extend, use the"
              + " lock extend returned");
    }
  }

  @Override
  public String toString() {
    State s = state; // not under the lock: an extend holds it for a round trip
    return "FencedLock["
        + lease
        + (s == State.HELD ? "" : ", " + s.name().toLowerCase(java.util.Locale.ROOT))
        + "]";
  }
}
