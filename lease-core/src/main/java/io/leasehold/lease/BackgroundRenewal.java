package io.leasehold.lease;

import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Renews a store's kept leases in the background, all of them in one statement (per {@value
 * ChunkedRenewal#CHUNK}) every renew interval, and watches their local deadlines on a separate task
 * so that a renewal stuck on the database cannot delay the loss signal.
 *
 * <p>Thread-safe.
 */
final class BackgroundRenewal {
  private static final System.Logger LOG = System.getLogger(BackgroundRenewal.class.getName());

  private final ChunkedRenewal renewal;
  private final ScheduledExecutorService givenScheduler;
  private final Duration renewInterval;
  private final ConcurrentHashMap<UUID, Lease> kept = new ConcurrentHashMap<>();

  private ScheduledExecutorService scheduler;
  private boolean ownsScheduler;
  private RenewalThreads threads;
  private ScheduledFuture<?> renewTask;
  private ScheduledFuture<?> watchTask;
  private boolean stopped;
  private final Ticker ticker;
  private final LeaseStoreListener listener;

  /** Ticker time of the last successful renewal round (or of the start); Long.MIN_VALUE before. */
  private volatile long lastRound = Long.MIN_VALUE;

  /**
   * Keeps leases through {@code renewal}, on its ticker.
   *
   * @param options the store's validated options: its renew interval, and the scheduler the caller
   *     gave (null: the keeper creates and owns one on first use)
   */
  BackgroundRenewal(
      ChunkedRenewal renewal, LeaseStoreBuilder options, LeaseStoreListener listener) {
    this.renewal = renewal;
    this.givenScheduler = options.scheduler;
    this.renewInterval = options.renewInterval;
    this.ticker = renewal.ticker();
    this.listener = listener;
  }

  /** Time since the last successful renewal round (or since the keeper started), once started. */
  Optional<Duration> sinceLastRound() {
    long last = lastRound;
    return last == Long.MIN_VALUE
        ? Optional.empty()
        : Optional.of(Duration.ofNanos(ticker.read() - last));
  }

  void keep(Lease lease) {
    synchronized (this) {
      if (stopped) {
        throw new IllegalStateException("the lease store is closed");
      }
      startIfNeeded();
      kept.put(lease.runId(), lease);
    }
    // A lease lost between the check and the put must not stay kept.
    if (lease.isEnded()) {
      kept.remove(lease.runId(), lease);
    }
  }

  void forget(Lease lease) {
    kept.remove(lease.runId(), lease);
  }

  int size() {
    return kept.size();
  }

  /**
   * Where a batch renewal runs its second statement at once (the store's scheduler, created on
   * first use unless one was given).
   *
   * @throws IllegalStateException if the store is closed
   */
  synchronized Executor helper() {
    if (stopped) {
      throw new IllegalStateException("the lease store is closed");
    }
    return ensureScheduler();
  }

  /**
   * The scheduler, for the pauses of asynchronous waits (timer tasks that only hand work on).
   *
   * @throws IllegalStateException if the store is closed
   */
  synchronized ScheduledExecutorService timer() {
    if (stopped) {
      throw new IllegalStateException("the lease store is closed");
    }
    return ensureScheduler();
  }

  private ScheduledExecutorService ensureScheduler() {
    if (scheduler == null) {
      if (givenScheduler != null) {
        scheduler = givenScheduler;
      } else {
        // Three threads at most, started as needed: renewal, the deadline watch, and the
        // second statement of a renewal of more than one chunk. The pauses of asynchronous
        // waits are timer tasks here too; they only hand the next try to the caller's executor.
        ScheduledThreadPoolExecutor own =
            new ScheduledThreadPoolExecutor(3, threads = new RenewalThreads());
        own.setRemoveOnCancelPolicy(true);
        // A pause still pending at close must not hold close() up until it is due.
        own.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        scheduler = own;
        ownsScheduler = true;
      }
    }
    return scheduler;
  }

  private void startIfNeeded() {
    if (renewTask != null) {
      return;
    }
    ensureScheduler();
    if (lastRound == Long.MIN_VALUE) {
      // Lag counts from the start: a keeper whose very first round hangs is lagging too.
      lastRound = ticker.read();
    }
    long renewNanos = renewInterval.toNanos();
    // The watch runs often enough that a passed deadline is noticed within a tenth of the
    // renew interval (at most every millisecond).
    long watchNanos = Math.max(TimeUnit.MILLISECONDS.toNanos(1), renewNanos / 10);
    renewTask =
        scheduler.scheduleWithFixedDelay(
            this::renewTick, renewNanos, renewNanos, TimeUnit.NANOSECONDS);
    watchTask =
        scheduler.scheduleWithFixedDelay(
            this::watchTick, watchNanos, watchNanos, TimeUnit.NANOSECONDS);
  }

  private void renewTick() {
    try {
      if (kept.isEmpty()) {
        // Nothing to renew is a round done: the lag measures the keeper, not the workload, so
        // the first lease after an idle hour does not read as an hour of lag.
        lastRound = ticker.read();
        return;
      }
      List<Lease> round = new ArrayList<>(kept.values());
      listener.started(LeaseStoreListener.Operation.RENEWAL);
      long start = ticker.read();
      BatchRenewal result;
      try {
        result = renewal.renew(round, true, scheduler);
      } catch (RuntimeException | Error e) {
        listener.renewalFailed(round.size(), Duration.ofNanos(ticker.read() - start), e);
        throw e;
      }
      long end = ticker.read();
      lastRound = end;
      listener.renewalRound(round.size(), result.lost().size(), Duration.ofNanos(end - start));
      if (!result.lost().isEmpty()) {
        LOG.log(Level.DEBUG, () -> result.lost().size() + " kept lease(s) lost at renewal");
      }
    } catch (RuntimeException e) {
      // Never let one failed round cancel the periodic task; the leases it covered are lost.
      LOG.log(Level.WARNING, "lease renewal round failed", e);
    }
  }

  private void watchTick() {
    try {
      for (Lease lease : kept.values()) {
        lease.checkDeadline();
      }
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "lease deadline watch failed", e);
    }
  }

  /** Stops renewing and returns the leases that were kept. */
  synchronized List<Lease> stopAndDrain() {
    stopped = true;
    if (renewTask != null) {
      renewTask.cancel(false);
      watchTask.cancel(false);
    }
    List<Lease> drained = new ArrayList<>(kept.values());
    kept.clear();
    return drained;
  }

  /** Stops the scheduler if this keeper created it; restores the interrupt flag if interrupted. */
  synchronized void shutdown() {
    if (!ownsScheduler) {
      return;
    }
    scheduler.shutdown();
    if (threads != null && threads.madeCurrentThread()) {
      // Closed from our own thread (a loss listener calling close()): waiting for the scheduler
      // would wait for this very task. It ends when the task returns.
      return;
    }
    try {
      if (!scheduler.awaitTermination(10, TimeUnit.SECONDS)) {
        scheduler.shutdownNow();
      }
    } catch (InterruptedException e) {
      scheduler.shutdownNow();
      Thread.currentThread().interrupt();
    }
  }

  private static final class RenewalThreads implements ThreadFactory {
    private static final AtomicInteger STORES = new AtomicInteger();
    private final int store = STORES.incrementAndGet();
    private final AtomicInteger threads = new AtomicInteger();
    private final java.util.Set<Thread> made = ConcurrentHashMap.newKeySet();

    boolean madeCurrentThread() {
      return made.contains(Thread.currentThread());
    }

    @Override
    public Thread newThread(Runnable r) {
      Thread t = new Thread(r, "leasehold-keeper-" + store + "-" + threads.incrementAndGet());
      made.add(t);
      t.setDaemon(true);
      return t;
    }
  }
}
