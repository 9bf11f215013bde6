package io.leasehold.shedlock;

import io.leasehold.fencing.Fenced;
import io.leasehold.fencing.FencingToken;
import io.leasehold.lease.Lease;
import io.leasehold.lease.RenewResult;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import net.javacrumbs.shedlock.core.SimpleLock;

/**
 * A ShedLock lock that is a Leasehold lease, and so has a fencing token: pass it (it is {@link
 * Fenced}) to any Leasehold guard, and the job's writes are refused once a newer holder of the
 * lock name has written. Valid until unlocked or extended (then use the lock {@code extend}
 * returned), as ShedLock requires. Thread-safe.
 */
public final class FencedLock implements SimpleLock, Fenced {
  /**
   * The locks this thread took through a {@link LeaseholdLockProvider} and still holds, newest
   * last: ShedLock locks, runs the task and unlocks on one thread, so a {@code @SchedulerLock}
   * method finds its lock here.
   */
  private static final ThreadLocal<java.util.ArrayDeque<FencedLock>> HELD =
      ThreadLocal.withInitial(java.util.ArrayDeque::new);

  private final Lease lease;
  private final Instant heldFrom;
  private final Duration atLeastFor;
  private final AtomicBoolean valid = new AtomicBoolean(true);

  FencedLock(Lease lease, Instant heldFrom, Duration atLeastFor) {
    this.lease = lease;
    this.heldFrom = heldFrom;
    this.atLeastFor = atLeastFor;
  }

  /**
   * The lock the current thread holds, the innermost if it holds several: inside a method
   * annotated {@code @SchedulerLock}, the method's own lock, whose fence its writes present.
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
   * <p>A lock stays this thread's current lock until it is unlocked or extended (ShedLock's
   * executor unlocks in a {@code finally} block), lost or not: a task whose lock expired gets its
   * own lock, whose writes are refused, never another one.
   *
   * @return the lock, or empty outside a locked task
   */
  public static Optional<FencedLock> current() {
    java.util.ArrayDeque<FencedLock> held = HELD.get();
    if (held.isEmpty()) {
      HELD.remove();
      return Optional.empty();
    }
    return Optional.of(held.peekLast());
  }

  /** Records that this thread holds {@code lock} (the provider calls it as it hands one out). */
  static FencedLock held(FencedLock lock) {
    HELD.get().addLast(lock);
    return lock;
  }

  private void notHeld() {
    java.util.ArrayDeque<FencedLock> held = HELD.get();
    held.removeLastOccurrence(this);
    if (held.isEmpty()) {
      HELD.remove();
    }
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
   * its last extension) started, by the database clock.
   *
   * @throws IllegalStateException if this lock was already unlocked or extended
   */
  @Override
  public void unlock() {
    invalidate("unlocked");
    notHeld();
    if (atLeastFor.isZero() || atLeastFor.isNegative()) {
      lease.release();
    } else {
      lease.releaseHolding(heldFrom.plus(atLeastFor));
    }
  }

  /**
   * Extends the lock to {@code lockAtMostFor} from the database's now.
   *
   * @param lockAtMostFor the new length, from now
   * @param lockAtLeastFor how long after now the key stays unavailable once unlocked
   * @return the new lock, or empty if the lock had expired or been taken over
   * @throws IllegalStateException if this lock was already unlocked or extended
   */
  @Override
  public Optional<SimpleLock> extend(Duration lockAtMostFor, Duration lockAtLeastFor) {
    invalidate("extended");
    notHeld();
    RenewResult renewed = lease.renew(lockAtMostFor);
    if (!renewed.renewed()) {
      return Optional.empty();
    }
    return Optional.of(held(new FencedLock(lease, renewed.databaseNow().orElseThrow(), lockAtLeastFor)));
  }

  private void invalidate(String what) {
    if (!valid.compareAndSet(true, false)) {
      throw new IllegalStateException(
          "lock " + lease.key().sessionId() + " cannot be " + what + ": it was already unlocked or"
              + " extended (" + lease + "); after extend, use the lock extend returned");
    }
  }

  @Override
  public String toString() {
    return "FencedLock[" + lease + (valid.get() ? "" : ", no longer valid") + "]";
  }
}
