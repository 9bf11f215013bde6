package io.leasehold.benchmarks;

import com.zaxxer.hikari.HikariDataSource;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.lease.AccessPolicy;
import io.leasehold.lease.BatchRenewal;
import io.leasehold.lease.Lease;
import io.leasehold.lease.LeaseSchema;
import io.leasehold.lease.LeaseStore;
import io.leasehold.lease.SeededLeases;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;

/**
 * One primary's ceiling (group {@code ceiling}): at each count of live leases ({@code keys=}), the
 * batch renewal of all of them by one store and acquire + release cycles on as many other keys at
 * each thread count, with the server's CPU and WAL flushes per cycle. With {@code other-jdbc-url=},
 * the same on a second database, window by window in turn (the coordinator's hop: a Citus
 * coordinator against a database without the extension on the same instance).
 *
 * <p>With {@code held=insert} the live leases are made by one set-based statement per 50,000
 * ({@link SeededLeases}: the rows the store's first acquire writes, held by the store as its own),
 * not one acquire each: on a Citus cluster a million acquires take hours, and what is measured of
 * them is the store's own {@code renewAll}. With {@code threads=none} the cycles are left out.
 */
final class CeilingBench extends BenchGroup {
  /** Long enough that no held lease expires while a million are acquired; no keeper renews them. */
  private static final Duration TTL = Duration.ofHours(4);

  /** Longer than one renewal statement on a loaded cluster. */
  private static final Duration STATEMENT_TIMEOUT = Duration.ofMinutes(2);

  /** Keys created per statement when the cycles' keys are made. */
  private static final int SEED_BATCH = 50_000;

  /**
   * Accounts the inserted live leases are spread over: on Citus an account's rows live in one
   * shard, so the leases of one account would all sit on one worker.
   */
  private static final int ACCOUNTS = 1_000;

  private final List<Integer> keyCounts;
  private final Optional<String> otherUrl;
  private final boolean heldByInsert;

  CeilingBench(BenchGroup.Context context) {
    super(context);
    this.keyCounts = context.keyCounts();
    this.otherUrl = context.otherUrl();
    this.heldByInsert = context.heldByInsert();
  }

  /** One database measured: its store, the leases it holds and the cycles' keys made so far. */
  private record Target(
      String name,
      BenchDatabase db,
      HikariDataSource pool,
      LeaseStore store,
      List<Lease> held,
      int[] cycleKeys) {}

  /** Alone: {@code ... -Dbench.args="group=ceiling keys=1000,10000 threads=1,4,16"}. */
  void ceiling() throws Exception {
    LeaseSchema schema = new LeaseSchema("bench_ceiling_lease", "bench_ceiling_seq");
    int maxThreads = threadCounts.stream().mapToInt(Integer::intValue).max().orElse(1);
    List<Target> targets = new ArrayList<>();
    targets.add(target("this database", db, schema, maxThreads));
    if (otherUrl.isPresent()) {
      BenchDatabase other = new BenchDatabase(otherUrl);
      db.onClose(other);
      targets.add(target("other database", other, schema, maxThreads));
    }
    line("## One primary's ceiling");
    line("");
    for (Target t : targets) {
      line("- " + t.name() + ": " + t.db().url.replaceAll("\\?.*", "") + " (" + citus(t) + ")");
    }
    line("");
    line(
        "Live leases are held by one store ("
            + (heldByInsert
                ? "made by one set-based insert per 50,000, the rows its first acquire writes, over"
                    + " 1,000 accounts,"
                : "acquired")
            + " with a TTL of 4 h, not kept alive); cycles"
            + " acquire and release keys of another account, as many as the live leases, each thread"
            + " drawing at random from its own share (rows made beforehand). The store's statement"
            + " timeout: "
            + STATEMENT_TIMEOUT.toSeconds()
            + " s. Load average: the machine's 1-minute figure when the row was measured.");
    line("");
    List<String> renewals = new ArrayList<>();
    List<String> cycles = new ArrayList<>();
    for (int keys : keyCounts) {
      for (Target t : targets) {
        long start = System.nanoTime();
        int before = t.held().size();
        if (heldByInsert) {
          t.held()
              .addAll(
                  SeededLeases.seed(
                      t.store(), t.pool(), "held", ACCOUNTS, before, keys - before, SEED_BATCH));
        } else {
          for (int from = before; from < keys; from += SEED_BATCH) {
            t.held()
                .addAll(
                    RenewalBench.acquireMany(
                        t.store(), "held", from, Math.min(SEED_BATCH, keys - from)));
          }
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        if (!threadCounts.isEmpty()) {
          seedCycleKeys(t, schema, keys);
        }
        line(
            "- "
                + t.name()
                + ": "
                + String.format(Locale.ROOT, "%,d", keys - before)
                + (heldByInsert
                    ? " leases inserted (one thread) in "
                    : " first acquires (16 threads) in ")
                + fmt(seconds)
                + " s, "
                + fmt((keys - before) / Math.max(seconds, 1e-9))
                + " leases/s, load "
                + load());
      }
      renewals.addAll(renewals(targets, keys));
      for (int threads : threadCounts) {
        cycles.addAll(cycles(targets, keys, threads));
      }
    }
    line("");
    line(
        "### Batch renewal of every live lease (`renewAll`, 10,000 leases a statement, two at once)");
    line("");
    line("| live leases | database | ms per pass (median) | ms per 10,000 | leases/s | load |");
    line("| --- | --- | --- | --- | --- | --- |");
    renewals.forEach(this::line);
    line("");
    if (threadCounts.isEmpty()) {
      return;
    }
    line("### Acquire + release cycles");
    line("");
    line(
        "Latency is the mean of a cycle (threads / cycles per second). CPU per cycle: the benchmark's"
            + " JVM / the server's processes (the coordinator's only, on Citus); busy cores: both"
            + " together times cycles per second. WAL flushes and bytes per commit on the server,"
            + " over the cell's windows (one database only).");
    line("");
    line(
        "| live leases | threads | database | cycles/s | latency ms | CPU us client / server | busy cores"
            + " | WAL flushes per commit | WAL bytes per commit | load |");
    line("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
    cycles.forEach(this::line);
    line("");
  }

  private Target target(String name, BenchDatabase on, LeaseSchema schema, int maxThreads)
      throws Exception {
    HikariDataSource pool = on.pool(Math.max(18, maxThreads + 2));
    schema.apply(pool);
    execute(pool, "TRUNCATE " + schema.table());
    LeaseStore store =
        LeaseStore.builder(pool)
            .schema(schema)
            .accessPolicy(AccessPolicy.allowAll())
            .ttl(TTL)
            // A renewal statement of 10,000 leases spread over a Citus cluster's workers took
            // more than the default 5 s on a loaded machine: the pass is measured, not cut short.
            .statementTimeout(STATEMENT_TIMEOUT)
            .build();
    on.onClose(store);
    return new Target(name, on, pool, store, new ArrayList<>(), new int[] {0});
  }

  private static String citus(Target t) throws Exception {
    try (Connection c = t.db().connection();
        Statement s = c.createStatement();
        java.sql.ResultSet rs =
            s.executeQuery(
                "SELECT coalesce((SELECT 'Citus ' || extversion FROM pg_extension"
                    + " WHERE extname = 'citus'), 'no Citus'), current_setting('server_version')")) {
      rs.next();
      return rs.getString(1) + ", PostgreSQL " + rs.getString(2);
    }
  }

  /**
   * Makes the cycles' keys up to {@code keys} as released rows, so that cycles update rows as a
   * long-running platform does, instead of inserting them.
   */
  private static void seedCycleKeys(Target t, LeaseSchema schema, int keys) throws Exception {
    try (Connection c = t.db().connection();
        PreparedStatement ps =
            c.prepareStatement(
                "INSERT INTO "
                    + schema.table()
                    + " (account_id, session_id, run_id, fence, holder, acquired_at, renewed_at,"
                    + " expires_at, released_at) SELECT 'cyc', 'c' || g, gen_random_uuid(),"
                    + " nextval('"
                    + schema.sequence()
                    + "'), 'seed', now(), now(), now(), now() FROM generate_series(?::int, ?::int) g")) {
      for (int from = t.cycleKeys()[0]; from < keys; from += SEED_BATCH) {
        ps.setInt(1, from);
        ps.setInt(2, Math.min(keys, from + SEED_BATCH) - 1);
        ps.executeUpdate();
      }
    }
    t.cycleKeys()[0] = Math.max(keys, t.cycleKeys()[0]);
  }

  /** Renewal passes over every held lease, the databases in turn. */
  private List<String> renewals(List<Target> targets, int keys) {
    double[][] ms = new double[targets.size()][windows];
    double[] loads = new double[targets.size()];
    for (int w = 0; w < windows; w++) {
      for (int i = 0; i < targets.size(); i++) {
        Target t = targets.get(i);
        long start = System.nanoTime();
        BatchRenewal r = t.store().renewAll(t.held());
        ms[i][w] = (System.nanoTime() - start) / 1e6;
        loads[i] = load();
        if (r.renewed() != keys) {
          throw new IllegalStateException(t.name() + " renewed " + r.renewed() + " of " + keys);
        }
      }
    }
    List<String> rows = new ArrayList<>();
    for (int i = 0; i < targets.size(); i++) {
      double perPass = Throughput.median(ms[i]);
      rows.add(
          "| "
              + String.format(Locale.ROOT, "%,d", keys)
              + " | "
              + targets.get(i).name()
              + " | "
              + fmt(perPass)
              + " | "
              + fmt(perPass * 10_000 / keys)
              + " | "
              + fmt(keys / (perPass / 1000))
              + " | "
              + fmt(loads[i])
              + " |");
    }
    return rows;
  }

  /** Acquire + release cycles on the cycles' keys, the databases window by window in turn. */
  private List<String> cycles(List<Target> targets, int keys, int threads) throws Exception {
    List<Throughput.OpFactory> factories = new ArrayList<>();
    for (Target t : targets) {
      factories.add(
          (i, n) -> {
            int share = Math.max(1, keys / n);
            return () -> {
              int k = i + n * ThreadLocalRandom.current().nextInt(share);
              LeaseKey key = LeaseKey.of("cyc", "c" + Math.min(k, keys - 1));
              t.store().tryAcquire(key, "cyc").acquiredLease().orElseThrow().release();
              return true;
            };
          });
    }
    Optional<ServerStats> before = Optional.empty();
    Connection stats = db.connection();
    boolean statements = ServerStats.statementsInstalled(stats);
    if (targets.size() == 1) {
      before = Optional.of(ServerStats.read(stats, statements));
    }
    List<Throughput.Rate> rates = Throughput.interleaved(factories, threads, window, windows);
    String load = fmt(load());
    Optional<ServerStats> wal =
        before.isPresent()
            ? Optional.of(ServerStats.read(stats, statements).minus(before.get()))
            : Optional.empty();
    stats.close();
    List<String> rows = new ArrayList<>();
    for (int i = 0; i < targets.size(); i++) {
      Throughput.Rate r = rates.get(i);
      double busy = (r.clientMicros() + r.serverMicros()) * r.successes() / 1e6;
      rows.add(
          "| "
              + String.format(Locale.ROOT, "%,d", keys)
              + " | "
              + threads
              + " | "
              + targets.get(i).name()
              + " | "
              + fmt(r.successes())
              + " | "
              + fmt(threads * 1000.0 / Math.max(r.successes(), 1e-9))
              + " | "
              + micros(r.clientMicros())
              + " / "
              + micros(r.serverMicros())
              + " | "
              + (Double.isNaN(busy) ? "n/a" : fmt(busy))
              + " | "
              + wal.map(s -> fmt((double) s.walSyncs() / Math.max(1, s.commits()))).orElse("-")
              + " | "
              + wal.map(s -> fmt((double) s.walBytes() / Math.max(1, s.commits()))).orElse("-")
              + " | "
              + load
              + " |");
    }
    return rows;
  }

  /** The machine's load average over the last minute (other builds share it). */
  private static double load() {
    try {
      return Double.parseDouble(Files.readString(Path.of("/proc/loadavg")).split(" ")[0]);
    } catch (java.io.IOException | RuntimeException e) {
      return Double.NaN;
    }
  }
}
