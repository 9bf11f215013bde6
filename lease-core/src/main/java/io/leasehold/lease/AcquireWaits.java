package io.leasehold.lease;

import io.leasehold.fencing.LeaseKey;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Waiting for a key: the loop behind {@link LeaseStore#acquire(AcquireRequest, Duration)} and
 * {@link LeaseStore#acquireAsync}, and the register of who waits for which key, so that a release
 * wakes them at once.
 *
 * <p>A waiter tries, and when the answer is {@code Busy} it pauses until whichever comes first: a
 * wake-up for its key (a release by this store, a forced release, or a release or expiry a {@link
 * LeaseWatcher} on this store heard of), the moment the holder's lease runs out by the database
 * clock (its expiry plus the takeover delay, taken from the {@code Busy} answer's status), a
 * backoff that doubles from a fiftieth of the store's poll ceiling up to the ceiling (10 ms to 500
 * ms unless set; a release by another process that publishes nothing is noticed this way), or the
 * end of its wait. Each pause is drawn at random between half and all of that time, so that waiters
 * who were refused together do not all try again together.
 */
final class AcquireWaits {
  static final Duration MAX_WAIT = Duration.ofDays(1);

  private final Ticker ticker;
  private final Duration takeoverDelay;
  private final long firstBackoffNanos;
  private final long maxBackoffNanos;
  private final Map<LeaseKey, Set<Runnable>> waiting = new ConcurrentHashMap<>();

  AcquireWaits(Ticker ticker, Duration takeoverDelay, Duration pollCeiling) {
    this.ticker = ticker;
    this.takeoverDelay = takeoverDelay;
    this.maxBackoffNanos = pollCeiling.toNanos();
    this.firstBackoffNanos = maxBackoffNanos / 50;
  }

  /** A lease on {@code key} ended (released, forced or expired): its waiters try again now. */
  void ended(LeaseKey key) {
    Set<Runnable> wakes = waiting.get(key);
    if (wakes != null) {
      wakes.forEach(Runnable::run);
    }
  }

  /**
   * Wakes every waiter, of every key: the store is closing (they learn it on their try), or a
   * watcher heard that some store's changes went unpublished.
   */
  void endedAll() {
    waiting.values().forEach(wakes -> wakes.forEach(Runnable::run));
  }

  /** How many waiters there are now, for tests and metrics. */
  int waiterCount() {
    return waiting.values().stream().mapToInt(Set::size).sum();
  }

  private void enlist(LeaseKey key, Runnable wake) {
    waiting.compute(
        key,
        (k, wakes) -> {
          Set<Runnable> s = wakes == null ? ConcurrentHashMap.newKeySet() : wakes;
          s.add(wake);
          return s;
        });
  }

  private void leave(LeaseKey key, Runnable wake) {
    waiting.computeIfPresent(
        key,
        (k, wakes) -> {
          wakes.remove(wake);
          return wakes.isEmpty() ? null : wakes;
        });
  }

  static void checkMaxWait(Duration maxWait) {
    if (maxWait == null || maxWait.isNegative() || maxWait.compareTo(MAX_WAIT) > 0) {
      throw new IllegalArgumentException(
          "maxWait must be between 0 and " + MAX_WAIT + ", was " + maxWait);
    }
  }

  /**
   * Tries until the key is acquired or {@code maxWait} has passed, on the calling thread.
   *
   * @param attempt one {@code tryAcquire}
   */
  AcquireResult await(LeaseKey key, Duration maxWait, Supplier<AcquireResult> attempt)
      throws InterruptedException {
    long deadline = ticker.read() + maxWait.toNanos();
    Semaphore woken = new Semaphore(0);
    Runnable wake = woken::release;
    enlist(key, wake);
    try {
      long backoff = firstBackoffNanos;
      while (true) {
        if (Thread.interrupted()) {
          throw new InterruptedException("interrupted while waiting to acquire " + key);
        }
        // A wake-up from before this try is spent: the try sees that release anyway.
        woken.drainPermits();
        AcquireResult r = attempt.get();
        long left = deadline - ticker.read();
        if (!(r instanceof AcquireResult.Busy busy) || left <= 0) {
          return r;
        }
        woken.tryAcquire(pause(busy.status(), backoff, left), TimeUnit.NANOSECONDS);
        backoff = Math.min(maxBackoffNanos, backoff * 2);
      }
    } finally {
      leave(key, wake);
    }
  }

  /**
   * The same loop without a waiting thread: each try runs on {@code executor}, each pause is a task
   * on {@code timer} that only hands the next try to the executor.
   *
   * @param release releases a lease that was granted after the future was cancelled
   */
  CompletableFuture<AcquireResult> async(
      LeaseKey key,
      Duration maxWait,
      Supplier<AcquireResult> attempt,
      Executor executor,
      ScheduledExecutorService timer,
      Function<Lease, ?> release) {
    AsyncWait w =
        new AsyncWait(key, ticker.read() + maxWait.toNanos(), attempt, executor, timer, release);
    enlist(key, w.wakeUp);
    w.result.whenComplete((r, e) -> w.finish());
    w.submit();
    return w.result;
  }

  /**
   * How long to pause after a refusal: the backoff, shortened to the moment the holder's lease runs
   * out by the database clock and to what is left of the wait, then drawn at random between half
   * and all of that.
   */
  long pause(LeaseStatus seen, long backoffNanos, long leftNanos) {
    long pause = Math.min(backoffNanos, leftNanos);
    Optional<LeaseOwner> owner = seen.owner();
    if (seen.isHeld() && owner.isPresent()) {
      long untilFree =
          Duration.between(seen.databaseNow(), owner.get().expiresAt())
              .plus(takeoverDelay)
              .toNanos();
      // One millisecond after: at the exact instant the lease is still live.
      pause = Math.min(pause, Math.max(0, untilFree) + TimeUnit.MILLISECONDS.toNanos(1));
    }
    return pause / 2 + ThreadLocalRandom.current().nextLong(pause / 2 + 1);
  }

  /** One asynchronous wait: at most one try in flight, and a timer task between tries. */
  private final class AsyncWait implements Runnable {
    final CompletableFuture<AcquireResult> result = new CompletableFuture<>();

    /**
     * The one wake-up object enlisted for this wait (a method reference is a new object each time).
     */
    final Runnable wakeUp = this::wake;

    private final LeaseKey key;
    private final long deadline;
    private final Supplier<AcquireResult> attempt;
    private final Executor executor;
    private final ScheduledExecutorService timer;
    private final Function<Lease, ?> release;
    private final AtomicBoolean woken = new AtomicBoolean();
    private long backoff = firstBackoffNanos; // touched by one try at a time
    private ScheduledFuture<?> next;

    AsyncWait(
        LeaseKey key,
        long deadline,
        Supplier<AcquireResult> attempt,
        Executor executor,
        ScheduledExecutorService timer,
        Function<Lease, ?> release) {
      this.key = key;
      this.deadline = deadline;
      this.attempt = attempt;
      this.executor = executor;
      this.timer = timer;
      this.release = release;
    }

    void submit() {
      try {
        executor.execute(this);
      } catch (RuntimeException e) {
        result.completeExceptionally(e);
      }
    }

    @Override
    public void run() {
      if (result.isDone()) {
        return;
      }
      woken.set(false);
      AcquireResult r;
      try {
        r = attempt.get();
      } catch (Throwable t) {
        result.completeExceptionally(t);
        return;
      }
      long left = deadline - ticker.read();
      if (r instanceof AcquireResult.Busy busy && left > 0) {
        long pause = woken.get() ? 0 : pause(busy.status(), backoff, left);
        backoff = Math.min(maxBackoffNanos, backoff * 2);
        ScheduledFuture<?> scheduled;
        synchronized (this) {
          if (result.isDone()) {
            return;
          }
          try {
            scheduled = timer.schedule(this::submit, pause, TimeUnit.NANOSECONDS);
          } catch (RejectedExecutionException e) {
            result.completeExceptionally(
                new IllegalStateException(
                    "could not schedule the next try (is the lease store closed?)", e));
            return;
          }
          next = scheduled;
        }
        // A wake-up heard after the check above but before the pause was scheduled found no
        // pending pause to cut short. Whoever cancels the pending pause submits the try, so the
        // try runs once, now, whichever of the two sees the wake-up first.
        if (woken.get() && scheduled.cancel(false)) {
          submit();
        }
        return;
      }
      if (!result.complete(r) && r instanceof AcquireResult.Acquired a) {
        // Cancelled while this try was in flight: nobody will use the lease, so end it now
        // instead of leaving the key blocked for a TTL.
        release.apply(a.lease());
      }
    }

    /** A release was heard: try at once if a pause is pending, else right after this try. */
    void wake() {
      woken.set(true);
      ScheduledFuture<?> pending;
      synchronized (this) {
        pending = next;
      }
      if (pending != null && pending.cancel(false)) {
        submit();
      }
    }

    void finish() {
      ScheduledFuture<?> pending;
      synchronized (this) {
        pending = next;
      }
      if (pending != null) {
        pending.cancel(false);
      }
      leave(key, wakeUp);
    }
  }
}
