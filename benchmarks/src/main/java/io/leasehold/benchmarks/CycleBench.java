package io.leasehold.benchmarks;

import java.util.List;

/** Acquire + release cycles against the peers (group {@code cycle}). */
final class CycleBench extends BenchGroup {
  CycleBench(BenchGroup.Context context) {
    super(context);
  }


  /**
   * Acquire + release cycles of Leasehold, its own SQL from bare JDBC, the seed's SQL, ShedLock
   * and Spring's registry, uncontended and contended. Alone: {@code mvn -q -pl benchmarks -am
   * -DskipTests -Pbench verify -Dbench.args="group=cycle"}.
   */
  void cycles() throws Exception {
    Competitors competitors = new Competitors(db);
    for (boolean contended : List.of(false, true)) {
      line("## Acquire + release, " + (contended ? "contended (all threads on one key)" : "uncontended (each thread its own key)"));
      line("");
      StringBuilder head = new StringBuilder("| threads |");
      StringBuilder sep = new StringBuilder("| --- |");
      for (String n : Competitors.names()) {
        head.append(' ').append(n).append(contended ? " ok/s (failed/s)" : " cycles/s").append(" |");
        sep.append(" --- |");
      }
      head.append(" Leasehold / ShedLock | Leasehold / Spring | publishing / ShedLock | publishing / Spring"
          + " | Leasehold / own SQL | Leasehold / seed SQL |");
      sep.append(" --- | --- | --- | --- | --- | --- |");
      line(head.toString());
      line(sep.toString());
      for (int threads : threadCounts) {
        List<Throughput.OpFactory> f =
            List.of(
                competitors.leasehold(contended, db.pool(threads + 2), false),
                competitors.leaseholdSql(contended),
                competitors.seedSql(contended),
                competitors.shedLock(contended, db.pool(threads + 2)),
                competitors.springRegistry(contended, db.pool(threads + 2)),
                competitors.leasehold(contended, db.pool(threads + 2), true));
        List<Throughput.Rate> r = Throughput.interleaved(f, threads, window, windows);
        db.closeOpened();
        StringBuilder row = new StringBuilder("| " + threads + " |");
        for (Throughput.Rate rate : r) {
          row.append(' ').append(fmt(rate.successes()));
          if (contended) {
            row.append(" (").append(fmt(rate.failures())).append(')');
          }
          row.append(" |");
        }
        double lh = r.get(0).successes();
        double publishing = r.get(5).successes();
        row.append(' ').append(ratio(lh, r.get(3).successes())).append(" | ").append(ratio(lh, r.get(4).successes()))
            .append(" | ").append(ratio(publishing, r.get(3).successes())).append(" | ").append(ratio(publishing, r.get(4).successes()))
            .append(" | ").append(ratio(lh, r.get(1).successes())).append(" | ").append(ratio(lh, r.get(2).successes()))
            .append(" |");
        line(row.toString());
      }
      line("");
    }
  }
}
