package io.leasehold.benchmarks;

import java.time.Duration;
import java.util.List;

/** Refused and waiting acquires under contention (groups {@code refusal} and {@code waiting}). */
final class ContentionGroups extends BenchGroup {
  ContentionGroups(BenchGroup.Context context) {
    super(context);
  }


  /**
   * What a refused attempt costs, next to ShedLock's and a plain failed UPDATE's. Alone: {@code
   * ... -Dbench.args="group=refusal"}.
   */
  void refusals() throws Exception {
    line("## A refused attempt (the key is held), latency in microseconds");
    line("");
    line("| threads | Leasehold tryAcquire p50 (p99) | its acquire statement, bare JDBC | ShedLock lock"
        + " | former acquire + status read (before issue 17), bare JDBC | plain failed UPDATE"
        + " | Leasehold / plain UPDATE, p50 | Leasehold / ShedLock, p50 | former / Leasehold, p50 |");
    line("| --- | --- | --- | --- | --- | --- | --- | --- | --- |");
    ContentionBench bench = new ContentionBench(db, window, windows);
    for (int threads : threadCounts) {
      List<ContentionBench.Latency> r = bench.refusals(threads);
      StringBuilder row = new StringBuilder("| " + threads + " |");
      for (ContentionBench.Latency l : r) {
        row.append(' ').append(fmt(l.p50())).append(" (").append(fmt(l.p99())).append(") |");
      }
      row.append(' ').append(ratio(r.get(0).p50(), r.get(4).p50())).append(" | ")
          .append(ratio(r.get(0).p50(), r.get(2).p50())).append(" | ")
          .append(ratio(r.get(3).p50(), r.get(0).p50())).append(" |");
      line(row.toString());
    }
    line("");
  }

  /**
   * Sixteen waiters taking one key in turns with {@code acquire(request, maxWait)}. Alone: {@code
   * ... -Dbench.args="group=waiting"}.
   */
  void waiting() throws Exception {
    int waiters = 16;
    Duration hold = Duration.ofMillis(10);
    int rounds = Math.max(3, windows);
    line("## Waiting acquire: " + waiters + " waiters take one key in turns, each holding it " + hold.toMillis()
        + " ms (" + rounds + " rounds)");
    line("");
    line("| where the waiters are | wait p50 ms | p90 | max | max / p50 | one round, ms (ideal " + waiters * hold.toMillis() + ") |");
    line("| --- | --- | --- | --- | --- | --- |");
    ContentionBench bench = new ContentionBench(db, window, windows);
    for (String mode : List.of("one store", "store per waiter, polling", "store per waiter, watcher")) {
      ContentionBench.Waits w = bench.waits(mode, waiters, hold, rounds);
      line("| " + mode + " | " + fmt(w.p50()) + " | " + fmt(w.p90()) + " | " + fmt(w.max()) + " | "
          + ratio(w.max(), w.p50()) + " | " + fmt(w.totalMillis()) + " |");
    }
    line("");
  }
}
