package io.leasehold.benchmarks;

import com.zaxxer.hikari.HikariDataSource;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.lease.AccessPolicy;
import io.leasehold.lease.AcquireResult;
import io.leasehold.lease.LeaseSchema;
import io.leasehold.lease.LeaseStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** The lease table's size on disk (group {@code table}). */
final class TableBench extends BenchGroup {
  TableBench(BenchGroup.Context context) {
    super(context);
  }

  /**
   * Acquire + release with 1 M dead rows in the table vs an empty table. Alone: {@code ...
   * -Dbench.args="group=table"}.
   */
  void tableSize() throws Exception {
    line(
        "## Table size: acquire + release with 1,000,000 dead rows of other keys vs an empty table");
    line("");
    LeaseSchema big = new LeaseSchema("bench_big_lease", "bench_big_seq");
    LeaseSchema empty = new LeaseSchema("bench_empty_lease", "bench_empty_seq");
    HikariDataSource setup = db.pool(2);
    big.apply(setup);
    empty.apply(setup);
    // Half released, half expired: the dead rows a busy table accumulates.
    execute(
        setup,
        "TRUNCATE bench_big_lease",
        "INSERT INTO bench_big_lease (account_id, session_id, run_id, fence, holder, acquired_at, renewed_at,"
            + " expires_at, released_at) SELECT 'dead', 's' || g, gen_random_uuid(), nextval('bench_big_seq'), 'x',"
            + " now() - interval '3 days', now() - interval '3 days', now() - interval '3 days',"
            + " CASE WHEN g % 2 = 0 THEN now() - interval '3 days' END FROM generate_series(1, 1000000) g",
        "VACUUM ANALYZE bench_big_lease");
    line("| threads | 1 M dead rows cycles/s | empty table cycles/s | ratio |");
    line("| --- | --- | --- | --- |");
    for (int threads : List.of(1, 4)) {
      List<Throughput.OpFactory> f = new ArrayList<>();
      for (LeaseSchema schema : List.of(big, empty)) {
        LeaseStore store =
            LeaseStore.builder(db.pool(threads + 2))
                .schema(schema)
                .accessPolicy(AccessPolicy.allowAll())
                .build();
        f.add(
            (i, n) -> {
              LeaseKey key = LeaseKey.of("live", "t" + i);
              return () -> {
                AcquireResult r = store.tryAcquire(key, "live");
                r.acquiredLease().orElseThrow().release();
                return true;
              };
            });
      }
      List<Throughput.Rate> r = Throughput.interleaved(f, threads, window, windows);
      line(
          "| "
              + threads
              + " | "
              + fmt(r.get(0).successes())
              + " | "
              + fmt(r.get(1).successes())
              + " | "
              + ratio(r.get(0).successes(), r.get(1).successes())
              + " |");
    }
    line("");
    // The sweeper on the same table: every dead row ended three days ago, live rows stay.
    try (LeaseStore sweeper =
        LeaseStore.builder(db.pool(2))
            .schema(big)
            .accessPolicy(AccessPolicy.allowAll().withAdministrators(java.util.Set.of("ops")))
            .build()) {
      long t = System.nanoTime();
      long deleted = sweeper.admin().sweep(Duration.ofDays(2), "ops");
      double ms = (System.nanoTime() - t) / 1e6;
      line(
          "Sweep of that table (`sweep(Duration.ofDays(2))`, 10,000 rows walked per statement): "
              + String.format(Locale.ROOT, "%,d", deleted)
              + " rows deleted in "
              + fmt(ms)
              + " ms ("
              + fmt(deleted / (ms / 1000))
              + " rows/s), while the live keys' rows stayed.");
    }
    line("");
  }
}
