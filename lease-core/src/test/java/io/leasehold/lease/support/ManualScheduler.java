package io.leasehold.lease.support;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.Delayed;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * A scheduler whose time is a {@link FakeTicker}: nothing runs until a test calls {@link
 * #runDue()}, on the test's own thread. Timing tests then depend on the ticks the test makes, not
 * on how fast a loaded machine happens to be. {@link #execute} runs at once on the caller.
 */
public final class ManualScheduler extends AbstractExecutorService
    implements ScheduledExecutorService {
  private final FakeTicker ticker;
  private final List<Task> tasks = new ArrayList<>();
  private boolean shutdown;

  public ManualScheduler(FakeTicker ticker) {
    this.ticker = ticker;
  }

  /**
   * Runs every task due by the ticker, earliest first, including periodic ones that fall due again.
   *
   * @return how many ran
   */
  public int runDue() {
    int ran = 0;
    while (true) {
      Task next;
      synchronized (this) {
        next =
            tasks.stream()
                .filter(t -> t.due - ticker.read() <= 0)
                .min((a, b) -> Long.compare(a.due, b.due))
                .orElse(null);
        if (next == null) {
          return ran;
        }
        tasks.remove(next);
      }
      next.runOnce();
      ran++;
    }
  }

  /** Advances the ticker by {@code d} and runs what fell due. */
  public int advanceAndRun(java.time.Duration d) {
    ticker.advance(d);
    return runDue();
  }

  private synchronized Task add(Task t) {
    if (shutdown) {
      throw new java.util.concurrent.RejectedExecutionException("shut down");
    }
    tasks.add(t);
    return t;
  }

  @Override
  public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
    return add(
        new Task(
            java.util.concurrent.Executors.callable(command),
            ticker.read() + unit.toNanos(delay),
            0));
  }

  @Override
  public <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
    @SuppressWarnings("unchecked")
    ScheduledFuture<V> f =
        (ScheduledFuture<V>) add(new Task(callable::call, ticker.read() + unit.toNanos(delay), 0));
    return f;
  }

  @Override
  public ScheduledFuture<?> scheduleAtFixedRate(
      Runnable command, long initialDelay, long period, TimeUnit unit) {
    return scheduleWithFixedDelay(command, initialDelay, period, unit);
  }

  @Override
  public ScheduledFuture<?> scheduleWithFixedDelay(
      Runnable command, long initialDelay, long delay, TimeUnit unit) {
    return add(
        new Task(
            java.util.concurrent.Executors.callable(command),
            ticker.read() + unit.toNanos(initialDelay),
            unit.toNanos(delay)));
  }

  @Override
  public void execute(Runnable command) {
    command.run();
  }

  @Override
  public synchronized void shutdown() {
    shutdown = true;
  }

  @Override
  public synchronized List<Runnable> shutdownNow() {
    shutdown = true;
    tasks.clear();
    return List.of();
  }

  @Override
  public synchronized boolean isShutdown() {
    return shutdown;
  }

  @Override
  public synchronized boolean isTerminated() {
    return shutdown;
  }

  @Override
  public boolean awaitTermination(long timeout, TimeUnit unit) {
    return true;
  }

  private final class Task implements ScheduledFuture<Object> {
    private final Callable<Object> body;
    private final long period;
    private volatile long due;
    private volatile boolean cancelled;
    private volatile boolean done;
    private volatile Object result;
    private volatile Throwable failure;

    Task(Callable<Object> body, long due, long period) {
      this.body = body;
      this.due = due;
      this.period = period;
    }

    void runOnce() {
      if (cancelled) {
        return;
      }
      try {
        result = body.call();
      } catch (Throwable t) {
        // A periodic task that throws is not run again, as with the JDK's schedulers.
        failure = t;
        done = true;
        return;
      }
      if (period > 0 && !cancelled) {
        due = ticker.read() + period;
        synchronized (ManualScheduler.this) {
          tasks.add(this);
        }
      } else {
        done = true;
      }
    }

    @Override
    public long getDelay(TimeUnit unit) {
      return unit.convert(due - ticker.read(), TimeUnit.NANOSECONDS);
    }

    @Override
    public int compareTo(Delayed o) {
      return Long.compare(getDelay(TimeUnit.NANOSECONDS), o.getDelay(TimeUnit.NANOSECONDS));
    }

    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
      synchronized (ManualScheduler.this) {
        if (done || cancelled) {
          return false;
        }
        cancelled = true;
        tasks.remove(this);
        return true;
      }
    }

    @Override
    public boolean isCancelled() {
      return cancelled;
    }

    @Override
    public boolean isDone() {
      return done || cancelled;
    }

    @Override
    public Object get() throws ExecutionException {
      if (cancelled) {
        throw new CancellationException();
      }
      if (!done) {
        throw new IllegalStateException("a manual task is done only after runDue() ran it");
      }
      if (failure != null) {
        throw new ExecutionException(failure);
      }
      return result;
    }

    @Override
    public Object get(long timeout, TimeUnit unit) throws ExecutionException {
      return get();
    }
  }
}
