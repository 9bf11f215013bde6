package io.leasehold.benchmarks;

import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.InMemoryFenceGuard;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.TokenVerifier;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.List;
import java.util.Locale;
import java.util.UUID;

/**
 * What an {@link InMemoryFenceGuard} pays per admission of a key it does not remember, while it
 * fills and once it is full and must forget keys to make room (issue 46, item 4), group {@code
 * eviction}: bounds of 10,000, 100,000 and 1,000,000 keys, one thread, a plain timed loop (no
 * database involved). Every admitted key is a key the guard has never seen; the time includes
 * making its token. Each cell gives the thread's CPU time per admission (what the guard costs,
 * whatever else the machine runs) and, in brackets, the elapsed time. Alone: {@code ...
 * -Dbench.args="group=eviction"}.
 */
final class EvictionBench extends BenchGroup {
  /** The bounds measured. */
  private static final List<Integer> BOUNDS = List.of(10_000, 100_000, 1_000_000);

  /** Most admissions a full-guard window makes, so a fast guard's window ends by count. */
  private static final int MOST_PER_WINDOW = 1_000_000;

  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

  /** The fence of the next token: one sequence for every key, as a lease store issues them. */
  private long fence;

  /** CPU and elapsed microseconds per admission. */
  private record Cost(double cpuMicros, double elapsedMicros) {
    static Cost median(Cost[] costs) {
      double[] cpu = new double[costs.length];
      double[] elapsed = new double[costs.length];
      for (int i = 0; i < costs.length; i++) {
        cpu[i] = costs[i].cpuMicros();
        elapsed[i] = costs[i].elapsedMicros();
      }
      return new Cost(Throughput.median(cpu), Throughput.median(elapsed));
    }

    @Override
    public String toString() {
      return fmt(cpuMicros) + " us (" + fmt(elapsedMicros) + " us)";
    }
  }

  EvictionBench(BenchGroup.Context context) {
    super(context);
  }

  void eviction() {
    line("## In-memory guard: admitting new keys while filling and when full");
    line("");
    line(
        "| bound (`maxKeys`) | filling: per new key | full: per key of a new account | full: per new key of an account"
            + " it remembers | remembered keys after |");
    line("| --- | --- | --- | --- | --- |");
    for (int bound : BOUNDS) {
      InMemoryFenceGuard guard =
          InMemoryFenceGuard.builder()
              .verifier(TokenVerifier.trustEveryWriter())
              .maxKeys(bound)
              .build();
      // Filling: every key its own account, the multi-tenant case of the issue.
      int[] next = {0};
      Cost filling = timed(() -> guard.admit(token("filler-" + next[0]++, "s")), bound, false);
      Cost[] newAccount = new Cost[windows];
      Cost[] ownAccount = new Cost[windows];
      timed(
          () -> guard.admit(token("warm-" + next[0]++, "s")),
          MOST_PER_WINDOW,
          true); // warm-up window
      for (int w = 0; w < windows; w++) {
        newAccount[w] =
            timed(() -> guard.admit(token("new-" + next[0]++, "s")), MOST_PER_WINDOW, true);
        // An account the guard remembers (its first key admitted now), adding keys of its own.
        String account = "own-" + w;
        guard.admit(token(account, "first"));
        ownAccount[w] =
            timed(() -> guard.admit(token(account, "s" + next[0]++)), MOST_PER_WINDOW, true);
      }
      line(
          "| "
              + String.format(Locale.ROOT, "%,d", bound)
              + " | "
              + filling
              + " | "
              + Cost.median(newAccount)
              + " | "
              + Cost.median(ownAccount)
              + " | "
              + String.format(Locale.ROOT, "%,d", guard.rememberedKeys())
              + " |");
    }
    line("");
    line(
        "CPU time of the admitting thread per admission (elapsed time in brackets). Filling: the first"
            + " `maxKeys` admissions, each a new account. Full: the median of "
            + windows
            + " windows of at most "
            + window.toMillis()
            + " ms or "
            + String.format(Locale.ROOT, "%,d", MOST_PER_WINDOW)
            + " admissions, after one warm-up window.");
    line("");
  }

  private FencingToken token(String account, String session) {
    fence++;
    return new FencingToken(LeaseKey.of(account, session), fence, new UUID(0, fence));
  }

  /**
   * Runs {@code admission} {@code count} times, or fewer if {@code windowed} and the window ends
   * first.
   */
  private Cost timed(Runnable admission, int count, boolean windowed) {
    long cpuStart = THREADS.getCurrentThreadCpuTime();
    long start = System.nanoTime();
    long end = start + window.toNanos();
    int done = 0;
    long now = start;
    while (done < count && (!windowed || now < end)) {
      admission.run();
      done++;
      if (done < 64 || (done & 63) == 0) {
        now = System.nanoTime();
      }
    }
    long cpu = THREADS.getCurrentThreadCpuTime() - cpuStart;
    return new Cost(cpu / 1e3 / done, (System.nanoTime() - start) / 1e3 / done);
  }
}
