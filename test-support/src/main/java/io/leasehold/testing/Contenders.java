package io.leasehold.testing;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Threads that contend for the same thing: either each repeats one round until the test stops them
 * ({@link #repeat}), or all make one call at the same moment ({@link #atOnce}). A failure in a
 * thread reaches the test through {@link #stop} or {@link #atOnce}, never only a log.
 */
public final class Contenders implements AutoCloseable {

  /** One round a contender runs again and again; it may throw, which ends that contender. */
  @FunctionalInterface
  public interface Round {
    /**
     * Runs the round once.
     *
     * @throws Exception if the round fails; the contender stops and {@link #stop} rethrows it
     */
    void run() throws Exception;
  }

  private final ExecutorService pool;
  private final AtomicBoolean stopped = new AtomicBoolean();
  private final List<Future<?>> runs = new ArrayList<>();

  private Contenders(int threads) {
    this.pool = Executors.newFixedThreadPool(threads);
  }

  /**
   * Starts {@code threads} contenders, each running {@code round} until {@link #stop}.
   *
   * @param threads how many contenders
   * @param round what each does, again and again
   * @return the running contenders; close them in a {@code finally} or try-with-resources
   */
  public static Contenders repeat(int threads, Round round) {
    Contenders contenders = new Contenders(threads);
    for (int i = 0; i < threads; i++) {
      contenders.runs.add(
          contenders.pool.submit(
              () -> {
                while (!contenders.stopped.get()) {
                  round.run();
                }
                return null;
              }));
    }
    return contenders;
  }

  /**
   * Stops the contenders after their current round and waits for each.
   *
   * @param timeout how long to wait for each contender
   * @throws Exception the first contender's failure (wrapped in an {@link
   *     java.util.concurrent.ExecutionException}), or a timeout
   */
  public void stop(Duration timeout) throws Exception {
    stopped.set(true);
    for (Future<?> run : runs) {
      run.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }
    pool.shutdown();
  }

  /** Stops the contenders, interrupting any that is still in a round. */
  @Override
  public void close() {
    stopped.set(true);
    pool.shutdownNow();
  }

  /**
   * Makes {@code callers} threads call {@code call} at the same moment (they wait for each other at
   * a barrier first), and returns what each returned.
   *
   * @param <T> what a call returns
   * @param callers how many threads call
   * @param call what each calls
   * @param timeout how long to wait for each caller
   * @return the callers' results, in the order the callers were started
   * @throws Exception the first caller's failure (wrapped in an {@link
   *     java.util.concurrent.ExecutionException}), or a timeout
   */
  public static <T> List<T> atOnce(int callers, Callable<T> call, Duration timeout)
      throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(callers);
    try {
      CyclicBarrier start = new CyclicBarrier(callers);
      List<Future<T>> futures = new ArrayList<>();
      for (int i = 0; i < callers; i++) {
        futures.add(
            pool.submit(
                () -> {
                  start.await();
                  return call.call();
                }));
      }
      List<T> results = new ArrayList<>();
      for (Future<T> f : futures) {
        results.add(f.get(timeout.toMillis(), TimeUnit.MILLISECONDS));
      }
      return results;
    } finally {
      pool.shutdownNow();
    }
  }
}
