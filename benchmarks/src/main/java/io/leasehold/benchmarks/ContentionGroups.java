package io.leasehold.benchmarks;

import java.time.Duration;
import java.util.List;

/** Refused and waiting acquires under contention (groups {@code refusal} and {@code waiting}). */
final class ContentionGroups extends BenchGroup {
  ContentionGroups(BenchGroup.Context context) {
    super(context);
  }

  /**
   * What a refused attempt costs, next to ShedLock's and a plain failed UPDATE's. Alone: {@code ...
   * -Dbench.args="group=refusal"}.
   */
  void refusals() throws Exception {
    line("## A refused attempt (the key is held), latency in microseconds");
    line("");
    List<String> names =
        List.of(
            "Leasehold tryAcquire",
            "its acquire statement, bare JDBC",
            "ShedLock JdbcTemplate, db time",
            "ShedLock plain JDBC's UPDATE",
            "former acquire + status read (before issue 17)",
            "Leasehold tryAcquire, shared pool");
    StringBuilder head = new StringBuilder("| threads |");
    StringBuilder sep = new StringBuilder("| --- |");
    for (String n : names) {
      head.append(' ').append(n).append(" p50 (p99) |");
      sep.append(" --- |");
    }
    line(
        head
            + " Leasehold / ShedLock plain, p50 | Leasehold / ShedLock JdbcTemplate, p50 | former / Leasehold, p50 |");
    line(sep + " --- | --- | --- |");
    ContentionBench bench = new ContentionBench(context);
    List<List<ContentionBench.Latency>> rows = new java.util.ArrayList<>();
    for (int threads : threadCounts) {
      List<ContentionBench.Latency> r = bench.refusals(threads);
      rows.add(r);
      StringBuilder row = new StringBuilder("| " + threads + " |");
      for (ContentionBench.Latency l : r) {
        row.append(' ').append(fmt(l.p50())).append(" (").append(fmt(l.p99())).append(") |");
      }
      row.append(' ')
          .append(ratio(r.get(0).p50(), r.get(3).p50()))
          .append(" | ")
          .append(ratio(r.get(0).p50(), r.get(2).p50()))
          .append(" | ")
          .append(ratio(r.get(4).p50(), r.get(0).p50()))
          .append(" |");
      line(row.toString());
    }
    line("");
    line("CPU time per refused attempt, microseconds, client / server:");
    line("");
    cpuTable(head, sep, rows);
    line("");
  }

  /**
   * Sixteen waiters taking one key in turns with {@code acquire(request, maxWait)}. Alone: {@code
   * ... -Dbench.args="group=waiting"}.
   */
  void waiting() throws Exception {
    int waiters = 16;
    Duration hold = Duration.ofMillis(10);
    // One round per window: the smoke test runs one, a measured run three (the default).
    int rounds = Math.max(1, windows);
    line(
        "## Waiting acquire: "
            + waiters
            + " waiters take one key in turns, each holding it "
            + hold.toMillis()
            + " ms ("
            + rounds
            + " rounds)");
    line("");
    line(
        "| where the waiters are | wait p50 ms | p90 | max | max / p50 | one round, ms (ideal "
            + waiters * hold.toMillis()
            + ") |");
    line("| --- | --- | --- | --- | --- | --- |");
    ContentionBench bench = new ContentionBench(context);
    for (String mode :
        List.of("one store", "store per waiter, polling", "store per waiter, watcher")) {
      ContentionBench.Waits w = bench.waits(mode, waiters, hold, rounds);
      line(
          "| "
              + mode
              + " | "
              + fmt(w.p50())
              + " | "
              + fmt(w.p90())
              + " | "
              + fmt(w.max())
              + " | "
              + ratio(w.max(), w.p50())
              + " | "
              + fmt(w.totalMillis())
              + " |");
    }
    line("");
  }
}
