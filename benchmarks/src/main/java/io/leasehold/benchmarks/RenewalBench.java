package io.leasehold.benchmarks;

import com.zaxxer.hikari.HikariDataSource;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.lease.AcquireResult;
import io.leasehold.lease.Lease;
import io.leasehold.lease.LeaseStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/** Renewal of many leases at once (group {@code renewal}). */
final class RenewalBench extends BenchGroup {
  RenewalBench(BenchGroup.Context context) {
    super(context);
  }

  /**
   * One process renewing 1k, 10k and 100k held leases, in batches and one by one. Alone: {@code ...
   * -Dbench.args="group=renewal"}.
   */
  void renewal() throws Exception {
    line("## Renewal at scale (one process)");
    line("");
    line(
        "| held leases | batch renewal: ms per round | leases/s | one by one: ms per round (measured on 1,000) |");
    line("| --- | --- | --- | --- |");
    HikariDataSource pool = db.pool(18);
    try (LeaseStore store = BenchDatabase.storeBuilder(pool, Duration.ofMinutes(10)).build()) {
      List<Lease> held = new ArrayList<>();
      for (int n : List.of(1_000, 10_000, 100_000)) {
        held.addAll(acquireMany(store, "renew", held.size(), n - held.size()));
        double[] ms = new double[windows];
        for (int w = 0; w < windows; w++) {
          long t = System.nanoTime();
          io.leasehold.lease.BatchRenewal r = store.renewAll(held);
          ms[w] = (System.nanoTime() - t) / 1e6;
          if (r.renewed() != n) {
            throw new IllegalStateException("renewed " + r.renewed() + " of " + n);
          }
        }
        double perRound = Throughput.median(ms);
        long t = System.nanoTime();
        for (Lease l : held.subList(0, 1_000)) {
          l.renew();
        }
        double oneByOnePerLease = (System.nanoTime() - t) / 1e6 / 1_000;
        line(
            row(
                String.format(Locale.ROOT, "%,d", n),
                fmt(perRound),
                fmt(n / (perRound / 1000)),
                fmt(oneByOnePerLease * n)));
      }
    }
    line("");
  }

  static List<Lease> acquireMany(LeaseStore store, String account, int from, int count)
      throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(16);
    try {
      List<Future<Lease>> futures = new ArrayList<>();
      for (int i = from; i < from + count; i++) {
        LeaseKey key = LeaseKey.of(account, "s" + i);
        futures.add(
            pool.submit(() -> ((AcquireResult.Acquired) store.tryAcquire(key, account)).lease()));
      }
      List<Lease> leases = new ArrayList<>();
      for (Future<Lease> f : futures) {
        leases.add(f.get());
      }
      return leases;
    } finally {
      pool.shutdown();
    }
  }
}
