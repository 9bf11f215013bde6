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
 * window closes, counting successes and failures. Several competitors are measured window by window
 * in turn, so that drift of a shared, noisy machine favours none of them, and the median of the
 * windows is reported.
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

  /** A step that always succeeds, given the count of steps its thread made before. */
  @FunctionalInterface
  interface Step {
    void run(int count) throws Exception;
  }

  /**
   * An operation of {@code batch} steps in a row, always a success: for steps too short to time one
   * by one, and for a guard's write that must not fail.
   */
  static OpFactory batched(int batch, Step step) {
    return (i, n) -> {
      int[] next = {0};
      return () -> {
        for (int r = 0; r < batch; r++) {
          step.run(next[0]++);
        }
        return true;
      };
    };
  }

  /** An operation of one step, always a success. */
  static OpFactory always(Step step) {
    return batched(1, step);
  }

  /**
   * CPU time per attempt of a measured competitor, in microseconds: the benchmark's JVM and the
   * database server's processes (NaN when it cannot be read).
   */
  interface CpuCost {
    double clientMicros();

    double serverMicros();
  }

  /**
   * One competitor's result: medians over the windows.
   *
   * @param successes successful operations per second
   * @param failures failed attempts per second
   * @param clientMicros CPU time of the benchmark's JVM per attempt (success or failure), in
   *     microseconds
   * @param serverMicros CPU time of the database server's processes per attempt, in microseconds;
   *     NaN when it cannot be read (an external server)
   */
  record Rate(double successes, double failures, double clientMicros, double serverMicros)
      implements CpuCost {}

  /** Reads cumulative CPU time, in nanoseconds: the JVM's and the database server's. */
  interface CpuClock {
    long client();

    /**
     * @return the server's CPU time, or -1 if it cannot be read
     */
    long server();
  }

  private static CpuClock cpu = ServerCpu.none();

  /** The CPU clock in use. */
  static CpuClock cpuClock() {
    return cpu;
  }

  /** Where server CPU time is read from, for the rest of the run (the benchmarks' one database). */
  static void useCpuClock(CpuClock clock) {
    cpu = clock;
  }

  /**
   * Measures competitors in turn, window by window.
   *
   * @param factories the competitors' per-thread operations, in order
   * @param threads threads per competitor
   * @param window the length of one window
   * @param windows how many windows per competitor (after one warm-up window each)
   * @return each competitor's median rates, in order
   */
  static List<Rate> interleaved(
      List<OpFactory> factories, int threads, Duration window, int windows) throws Exception {
    int n = factories.size();
    double[][] ok = new double[n][windows];
    double[][] failed = new double[n][windows];
    double[][] client = new double[n][windows];
    double[][] server = new double[n][windows];
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
        long client0 = cpu.client();
        long server0 = cpu.server();
        long[] r = window(ops.get(c), window);
        long attempts = Math.max(1, r[0] + r[1]);
        client[c][w] = (cpu.client() - client0) / 1e3 / attempts;
        server[c][w] = server0 < 0 ? Double.NaN : (cpu.server() - server0) / 1e3 / attempts;
        ok[c][w] = r[0] * 1e9 / window.toNanos();
        failed[c][w] = r[1] * 1e9 / window.toNanos();
      }
    }
    List<Rate> rates = new ArrayList<>();
    for (int c = 0; c < n; c++) {
      rates.add(new Rate(median(ok[c]), median(failed[c]), median(client[c]), median(server[c])));
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
    runWindow(start, window, stop, threads, errors);
    return new long[] {ok.sum(), failed.sum()};
  }

  /**
   * Lets started threads waiting on {@code start} run for one window, then stops them and waits for
   * them to end.
   *
   * @throws Exception the first a thread failed with
   */
  static void runWindow(
      CyclicBarrier start,
      Duration window,
      AtomicBoolean stop,
      List<Thread> threads,
      List<Exception> errors)
      throws Exception {
    start.await();
    Thread.sleep(window.toMillis());
    stop.set(true);
    for (Thread t : threads) {
      t.join();
    }
    if (!errors.isEmpty()) {
      throw errors.get(0);
    }
  }

  static double median(double[] values) {
    double[] v = values.clone();
    Arrays.sort(v);
    return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
  }
}
