package io.leasehold.benchmarks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;

/**
 * Multi-threaded throughput over a fixed window: every thread repeats its operation until the
 * window closes, counting successes and failures. Several competitors are measured window by
 * window in turn, so that drift of a shared, noisy machine favours none of them, and the median
 * of the windows is reported.
 */
final class Throughput {
  private Throughput() {}

  /** One thread's repeated operation: returns true for a success (an acquisition). */
  @FunctionalInterface
  interface Op {
    boolean run() throws Exception;
  }

  /** Creates the operation of thread {@code i} of {@code n}. */
  @FunctionalInterface
  interface OpFactory {
    Op create(int i, int n) throws Exception;
  }

  /**
   * One competitor's result: medians per second.
   *
   * @param successes successful operations per second
   * @param failures failed attempts per second
   */
  record Rate(double successes, double failures) {}

  /**
   * Measures competitors in turn, window by window.
   *
   * @param factories the competitors' per-thread operations, in order
   * @param threads threads per competitor
   * @param window the length of one window
   * @param windows how many windows per competitor (after one warm-up window each)
   * @return each competitor's median rates, in order
   */
  static List<Rate> interleaved(List<OpFactory> factories, int threads, Duration window, int windows)
      throws Exception {
    int n = factories.size();
    double[][] ok = new double[n][windows];
    double[][] failed = new double[n][windows];
    List<List<Op>> ops = new ArrayList<>();
    for (OpFactory f : factories) {
      List<Op> perThread = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        perThread.add(f.create(t, threads));
      }
      ops.add(perThread);
    }
    for (int c = 0; c < n; c++) {
      window(ops.get(c), window); // warm-up
    }
    for (int w = 0; w < windows; w++) {
      for (int c = 0; c < n; c++) {
        long[] r = window(ops.get(c), window);
        ok[c][w] = r[0] * 1e9 / window.toNanos();
        failed[c][w] = r[1] * 1e9 / window.toNanos();
      }
    }
    List<Rate> rates = new ArrayList<>();
    for (int c = 0; c < n; c++) {
      rates.add(new Rate(median(ok[c]), median(failed[c])));
    }
    return rates;
  }

  /** Runs the threads for one window; returns {successes, failures}. */
  private static long[] window(List<Op> ops, Duration window) throws Exception {
    LongAdder ok = new LongAdder();
    LongAdder failed = new LongAdder();
    AtomicBoolean stop = new AtomicBoolean();
    CyclicBarrier start = new CyclicBarrier(ops.size() + 1);
    List<Thread> threads = new ArrayList<>();
    List<Exception> errors = new java.util.concurrent.CopyOnWriteArrayList<>();
    for (Op op : ops) {
      Thread t =
          new Thread(
              () -> {
                try {
                  start.await();
                  while (!stop.get()) {
                    if (op.run()) {
                      ok.increment();
                    } else {
                      failed.increment();
                    }
                  }
                } catch (Exception e) {
                  errors.add(e);
                }
              });
      t.start();
      threads.add(t);
    }
    start.await();
    Thread.sleep(window.toMillis());
    stop.set(true);
    for (Thread t : threads) {
      t.join();
    }
    if (!errors.isEmpty()) {
      throw errors.get(0);
    }
    return new long[] {ok.sum(), failed.sum()};
  }

  static double median(double[] values) {
    double[] v = values.clone();
    Arrays.sort(v);
    return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
  }
}
