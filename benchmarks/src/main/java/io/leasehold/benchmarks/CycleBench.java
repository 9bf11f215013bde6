package io.leasehold.benchmarks;

import java.util.ArrayList;
import java.util.List;

/** Acquire + release cycles against the peers (group {@code cycle}). */
final class CycleBench extends BenchGroup {
  CycleBench(BenchGroup.Context context) {
    super(context);
  }

  /**
   * Acquire + release cycles of Leasehold (a store per worker, a shared store, a store on a pool
   * shared with the application, a publishing store), its own SQL from bare JDBC, the seed's SQL,
   * ShedLock's three configurations and Spring's registry, uncontended and contended. Alone: {@code
   * mvn -q -pl benchmarks -am -DskipTests -Pbench verify -Dbench.args="group=cycle"}.
   */
  void cycles() throws Exception {
    Competitors competitors = new Competitors(db);
    List<String> names = Competitors.names();
    for (boolean contended : List.of(false, true)) {
      line(
          "## Acquire + release, "
              + (contended
                  ? "contended (all threads on one key)"
                  : "uncontended (each thread its own key)"));
      line("");
      line(
          "Successful cycles per second"
              + (contended ? " (refused attempts per second in brackets)" : "")
              + ".");
      line("");
      StringBuilder head = new StringBuilder("| threads |");
      StringBuilder sep = new StringBuilder("| --- |");
      for (String n : names) {
        head.append(' ').append(n).append(" |");
        sep.append(" --- |");
      }
      line(head.toString());
      line(sep.toString());
      List<List<Throughput.Rate>> rows = new java.util.ArrayList<>();
      for (int threads : threadCounts) {
        List<Throughput.OpFactory> f =
            List.of(
                competitors.leasehold(
                    contended, Competitors.Setup.STORE_PER_WORKER, threads, false),
                competitors.leasehold(contended, Competitors.Setup.SHARED_STORE, threads, false),
                competitors.leasehold(contended, Competitors.Setup.SHARED_POOL, threads, false),
                competitors.leasehold(contended, Competitors.Setup.SHARED_STORE, threads, true),
                competitors.leaseholdSql(contended),
                competitors.seedSql(contended),
                competitors.shedLockPlain(contended, db.pool(threads + 2)),
                competitors.shedLock(contended, db.pool(threads + 2), false),
                competitors.shedLock(contended, db.pool(threads + 2), true),
                competitors.springRegistry(contended, db.pool(threads + 2)));
        List<Throughput.Rate> r = Throughput.interleaved(f, threads, window, windows);
        db.closeOpened();
        rows.add(r);
        StringBuilder row = new StringBuilder("| " + threads + " |");
        for (Throughput.Rate rate : r) {
          row.append(' ').append(fmt(rate.successes()));
          if (contended) {
            row.append(" (").append(fmt(rate.failures())).append(')');
          }
          row.append(" |");
        }
        line(row.toString());
      }
      line("");
      line(
          "Ratios of successful cycles, Leasehold with a store per worker (the others as named) to each peer:");
      line("");
      line(
          "| threads | / ShedLock plain | / ShedLock JdbcTemplate | / ShedLock db time | / Spring | / seed SQL"
              + " | / own SQL | shared store / ShedLock plain | shared pool / ShedLock plain | publishing / shared store |");
      line("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
      for (int t = 0; t < threadCounts.size(); t++) {
        List<Throughput.Rate> r = rows.get(t);
        // Each column's pair of rates, by index in the row: {numerator, denominator}.
        int[][] columns = {{0, 6}, {0, 7}, {0, 8}, {0, 9}, {0, 5}, {0, 4}, {1, 6}, {2, 6}, {3, 1}};
        List<Object> cells = new ArrayList<>(List.of(threadCounts.get(t)));
        for (int[] c : columns) {
          cells.add(ratio(r.get(c[0]).successes(), r.get(c[1]).successes()));
        }
        line(row(cells.toArray()));
      }
      line("");
      line(
          "CPU time per attempt (a cycle, or a refused try), microseconds, client (the benchmark's JVM) / server"
              + " (every PostgreSQL process):");
      line("");
      cpuTable(head, sep, rows);
      line("");
    }
  }
}
