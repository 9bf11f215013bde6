package io.leasehold.shedlock;

import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A scheduler for {@code KeepAliveLockProvider} that runs its periodic extension only when a test
 * calls {@link #extendNow()}, on the thread the test chooses.
 */
final class ManualScheduler extends ScheduledThreadPoolExecutor {
  private final AtomicReference<Runnable> periodic = new AtomicReference<>();

  ManualScheduler() {
    super(1);
  }

  @Override
  public ScheduledFuture<?> scheduleAtFixedRate(
      Runnable command, long initialDelay, long period, TimeUnit unit) {
    periodic.set(command);
    return schedule(() -> {}, 1, TimeUnit.DAYS); // cancelled when the lock is unlocked
  }

  /** Runs the extension the provider last scheduled, now, on this thread. */
  void extendNow() {
    periodic.get().run();
  }
}
