package io.leasehold.benchmarks;

import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.InMemoryFenceGuard;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.TokenVerifier;
import java.util.List;
import java.util.UUID;

/**
 * What an {@link InMemoryFenceGuard} pays per admission of a key it does not remember, while it
 * fills and once it is full and must forget keys to make room (issue 46, item 4), group {@code
 * eviction}: bounds of 10,000, 100,000 and 1,000,000 keys, one thread, a plain timed loop (no
 * database involved). Every admitted key is a key the guard has never seen; the time includes
 * making its token (a few tens of nanoseconds). Alone: {@code ... -Dbench.args="group=eviction"}.
 */
final class EvictionBench extends BenchGroup {
  /** The bounds measured. */
  private static final List<Integer> BOUNDS = List.of(10_000, 100_000, 1_000_000);

  /** Most admissions a full-guard window makes, so a fast guard's window ends by count. */
  private static final int MOST_PER_WINDOW = 1_000_000;

  /** The fence of the next token: one sequence for every key, as a lease store issues them. */
  private long fence;

  EvictionBench(BenchGroup.Context context) {
    super(context);
  }

  void eviction() {
    line("## In-memory guard: admitting new keys while filling and when full");
    line("");
    line("| bound (`maxKeys`) | filling: per new key | full: per key of a new account | full: per new key of an account"
        + " it remembers | remembered keys after |");
    line("| --- | --- | --- | --- | --- |");
    for (int bound : BOUNDS) {
      InMemoryFenceGuard guard = InMemoryFenceGuard.builder().verifier(TokenVerifier.trustEveryWriter()).maxKeys(bound).build();
      // Filling: every key its own account, the multi-tenant case of the issue.
      long start = System.nanoTime();
      for (int i = 0; i < bound; i++) {
        guard.admit(token("filler-" + i, "s"));
      }
      double fillingMicros = (System.nanoTime() - start) / 1e3 / bound;
      double[] newAccount = new double[windows];
      double[] ownAccount = new double[windows];
      int[] next = {0};
      timed(() -> guard.admit(token("warm-" + next[0]++, "s"))); // warm-up window
      for (int w = 0; w < windows; w++) {
        newAccount[w] = timed(() -> guard.admit(token("new-" + next[0]++, "s")));
        // An account the guard remembers (its first key admitted now), adding keys of its own.
        String account = "own-" + w;
        guard.admit(token(account, "first"));
        ownAccount[w] = timed(() -> guard.admit(token(account, "s" + next[0]++)));
      }
      line("| " + String.format(java.util.Locale.ROOT, "%,d", bound) + " | " + fmt(fillingMicros) + " us | "
          + fmt(Throughput.median(newAccount)) + " us | " + fmt(Throughput.median(ownAccount)) + " us | "
          + String.format(java.util.Locale.ROOT, "%,d", guard.rememberedKeys()) + " |");
    }
    line("");
    line("Each full-guard cell is the median of " + windows + " windows of at most " + window.toMillis() + " ms or "
        + String.format(java.util.Locale.ROOT, "%,d", MOST_PER_WINDOW) + " admissions, after one warm-up window.");
    line("");
  }

  private FencingToken token(String account, String session) {
    fence++;
    return new FencingToken(LeaseKey.of(account, session), fence, new UUID(0, fence));
  }

  /** Microseconds per call of {@code admission}, run for one window or {@link #MOST_PER_WINDOW} calls. */
  private double timed(Runnable admission) {
    long start = System.nanoTime();
    long end = start + window.toNanos();
    int done = 0;
    long now = start;
    while (done < MOST_PER_WINDOW && now < end) {
      admission.run();
      done++;
      if ((done & 63) == 0 || done < 64) {
        now = System.nanoTime();
      }
    }
    return (System.nanoTime() - start) / 1e3 / done;
  }
}
