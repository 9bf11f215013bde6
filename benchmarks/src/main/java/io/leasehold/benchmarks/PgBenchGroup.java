package io.leasehold.benchmarks;

import java.nio.file.Path;

/** pgbench's own transaction next to a lease cycle (group {@code pgbench}). */
final class PgBenchGroup extends BenchGroup {
  PgBenchGroup(BenchGroup.Context context) {
    super(context);
  }

  /**
   * pgbench running the seed's and Leasehold's statements. Alone: {@code ...
   * -Dbench.args="group=pgbench"}.
   */
  void pgbench() throws Exception {
    pgbenchSection("pgbench, uncontended acquire + release (the database alone)", this::pgbench);
  }

  private void pgbench(Path pgbench) throws Exception {
    com.zaxxer.hikari.HikariDataSource setup = leasePool(1);
    Competitors.createPeerTables(db);
    try (java.sql.Connection c = setup.getConnection()) {
      PgBench.createKeys(c, "leasehold_lease");
    }
    db.closeOpened();
    line(
        "`"
            + pgbench
            + " -n -M prepared -c N -j N -T "
            + window.toSeconds()
            + "`, each transaction one cycle; median of "
            + windows
            + " runs, seed script and Leasehold script interleaved.");
    line("");
    line("| clients | seed SQL tps | Leasehold SQL tps | Leasehold SQL / seed SQL |");
    line("| --- | --- | --- | --- |");
    for (int threads : threadCounts) {
      double[] seed = new double[windows];
      double[] lh = new double[windows];
      for (int w = 0; w < windows; w++) {
        seed[w] = PgBench.run(pgbench, db, PgBench.SEED, threads, window);
        lh[w] = PgBench.run(pgbench, db, PgBench.LEASEHOLD, threads, window);
      }
      double s = Throughput.median(seed);
      double l = Throughput.median(lh);
      line("| " + threads + " | " + fmt(s) + " | " + fmt(l) + " | " + ratio(l, s) + " |");
    }
    line("");
  }
}
