package io.leasehold.benchmarks;

import io.leasehold.fencing.SignatureScheme;
import io.leasehold.fencing.SigningKey;
import io.leasehold.fencing.TokenKeySet;
import io.leasehold.fencing.TokenVerifier;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.zaxxer.hikari.HikariDataSource;
import io.leasehold.adapters.file.FencedFileStore;
import io.leasehold.adapters.jdbc.FencedJdbcWriter;
import io.leasehold.adapters.jdbc.HighWaterSchema;
import io.leasehold.adapters.tool.FencedTool;
import io.leasehold.adapters.tool.FencedToolExecutor;
import io.leasehold.adapters.tool.FileToolJournal;
import io.leasehold.adapters.tool.MemoryToolJournal;
import io.leasehold.adapters.tool.ToolInvocation;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.InMemoryFenceGuard;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.lease.AccessPolicy;
import io.leasehold.lease.AcquireResult;
import io.leasehold.lease.Lease;
import io.leasehold.lease.LeaseSchema;
import io.leasehold.lease.LeaseStore;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Runs every benchmark (or one group) on one PostgreSQL instance and writes a Markdown report to
 * {@code target/benchmarks.md}. Settings are {@code name=value} arguments: {@code group=}
 * {@code cycle}, {@code pgbench}, {@code renewal}, {@code guards}, {@code table} or {@code
 * ablation} (default all),
 * {@code window=2s}, {@code windows=3}, {@code threads=1,4,16}, {@code jdbc-url=...}.
 *
 * <pre>
 * mvn -q -pl benchmarks -am -DskipTests -Pbench verify                              # everything
 * mvn -q -pl benchmarks -am -DskipTests -Pbench verify -Dbench.args="group=cycle"   # one group
 * </pre>
 */
public final class BenchMain {
  private static final java.util.logging.Logger LIQUIBASE = java.util.logging.Logger.getLogger("liquibase");

  private final StringBuilder md = new StringBuilder();
  private final BenchDatabase db;
  private final Duration window;
  private final int windows;
  private final List<Integer> threadCounts;

  private BenchMain(BenchDatabase db, Duration window, int windows, List<Integer> threadCounts) {
    this.db = db;
    this.window = window;
    this.windows = windows;
    this.threadCounts = threadCounts;
  }

  /**
   * Runs the benchmarks.
   *
   * @param args {@code name=value} settings
   * @throws Exception if a benchmark fails
   */
  public static void main(String[] args) throws Exception {
    String report = run(args);
    Path out = Path.of("target", "benchmarks.md");
    Files.createDirectories(out.getParent());
    Files.writeString(out, report);
    System.out.println("written to " + out.toAbsolutePath());
  }

  /**
   * Runs the benchmarks and returns the Markdown report (also printed as it goes).
   *
   * @param args {@code name=value} settings
   * @return the report
   * @throws Exception if a benchmark fails
   */
  static String run(String... args) throws Exception {
    LIQUIBASE.setLevel(java.util.logging.Level.WARNING);
    Set<String> groups = Set.of("cycle", "refusal", "waiting", "pgbench", "renewal", "guards", "verification", "journal", "table", "ablation");
    Duration window = Duration.ofSeconds(2);
    int windows = 3;
    List<Integer> threads = List.of(1, 4, 16);
    Optional<String> url = Optional.empty();
    for (String a : args) {
      if (a.isBlank()) {
        continue;
      }
      String[] kv = a.split("=", 2);
      switch (kv[0]) {
        case "group" -> groups = Set.of(kv[1].split(","));
        case "window" -> window = Duration.ofMillis(Long.parseLong(kv[1].replace("ms", "").replace("s", "000")));
        case "windows" -> windows = Integer.parseInt(kv[1]);
        case "threads" -> threads = java.util.Arrays.stream(kv[1].split(",")).map(Integer::valueOf).toList();
        case "jdbc-url" -> url = Optional.of(kv[1]);
        default -> throw new IllegalArgumentException("unknown setting " + a);
      }
    }
    try (BenchDatabase db = new BenchDatabase(url)) {
      BenchMain b = new BenchMain(db, window, windows, threads);
      b.header();
      if (groups.contains("cycle")) {
        b.cycles();
      }
      if (groups.contains("refusal")) {
        b.refusals();
      }
      if (groups.contains("waiting")) {
        b.waiting();
      }
      if (groups.contains("pgbench")) {
        b.pgbench();
      }
      if (groups.contains("renewal")) {
        b.renewal();
      }
      if (groups.contains("guards")) {
        b.guards();
      }
      if (groups.contains("verification")) {
        b.verification();
      }
      if (groups.contains("journal")) {
        b.journal(1_000_000);
      }
      if (groups.contains("table")) {
        b.tableSize();
      }
      if (groups.contains("ablation")) {
        b.ablation();
      }
      return b.md.toString();
    }
  }

  private void line(String s) {
    md.append(s).append('\n');
    System.out.println(s);
  }

  private void header() throws Exception {
    try (Connection c = db.connection();
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT version(), current_setting('fsync'), current_setting('synchronous_commit'),"
                    + " current_setting('shared_buffers')")) {
      rs.next();
      line("# Benchmark run");
      line("");
      line("- machine: " + Runtime.getRuntime().availableProcessors() + " cores, Java "
          + System.getProperty("java.version"));
      line("- database: " + rs.getString(1).replaceAll(" on .*", "") + ", fsync=" + rs.getString(2)
          + ", synchronous_commit=" + rs.getString(3) + ", shared_buffers=" + rs.getString(4));
      line("- method: each cell is the median of " + windows + " windows of " + window.toMillis()
          + " ms after one warm-up window; competitors of a row run window by window in turn");
      line("");
    }
    LeaseSchema.defaults().apply(db.pool(1));
    Competitors.createPeerTables(db);
  }

  // ------------------------------------------------------------------ 1. acquire + release

  /**
   * Acquire + release cycles of Leasehold, its own SQL from bare JDBC, the seed's SQL, ShedLock
   * and Spring's registry, uncontended and contended. Alone: {@code mvn -q -pl benchmarks -am
   * -DskipTests -Pbench verify -Dbench.args="group=cycle"}.
   */
  private void cycles() throws Exception {
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

  // ------------------------------------------------------------------ contention

  /**
   * What a refused attempt costs, next to ShedLock's and a plain failed UPDATE's. Alone: {@code
   * ... -Dbench.args="group=refusal"}.
   */
  private void refusals() throws Exception {
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
  private void waiting() throws Exception {
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

  // ------------------------------------------------------------------ pgbench

  /**
   * pgbench running the seed's and Leasehold's statements. Alone: {@code ... -Dbench.args="group=pgbench"}.
   */
  private void pgbench() throws Exception {
    Optional<Path> pgbench = PgBench.find();
    line("## pgbench, uncontended acquire + release (the database alone)");
    line("");
    if (pgbench.isEmpty() || db.port < 0) {
      line("pgbench not found (or an external database): skipped.");
      line("");
      return;
    }
    line("`" + pgbench.get() + " -n -M prepared -c N -j N -T " + window.toSeconds() + "`, each transaction one cycle; median of "
        + windows + " runs, seed script and Leasehold script interleaved.");
    line("");
    line("| clients | seed SQL tps | Leasehold SQL tps | Leasehold SQL / seed SQL |");
    line("| --- | --- | --- | --- |");
    for (int threads : threadCounts) {
      double[] seed = new double[windows];
      double[] lh = new double[windows];
      for (int w = 0; w < windows; w++) {
        seed[w] = PgBench.run(pgbench.get(), db, PgBench.SEED, threads, window);
        lh[w] = PgBench.run(pgbench.get(), db, PgBench.LEASEHOLD, threads, window);
      }
      double s = Throughput.median(seed);
      double l = Throughput.median(lh);
      line("| " + threads + " | " + fmt(s) + " | " + fmt(l) + " | " + ratio(l, s) + " |");
    }
    line("");
  }

  // ------------------------------------------------------------------ 2. renewal at scale

  /**
   * One process renewing 1k, 10k and 100k held leases, in batches and one by one. Alone: {@code
   * ... -Dbench.args="group=renewal"}.
   */
  private void renewal() throws Exception {
    line("## Renewal at scale (one process)");
    line("");
    line("| held leases | batch renewal: ms per round | leases/s | one by one: ms per round (measured on 1,000) |");
    line("| --- | --- | --- | --- |");
    HikariDataSource pool = db.pool(18);
    try (LeaseStore store =
        LeaseStore.builder(pool).accessPolicy(AccessPolicy.allowAll()).ttl(Duration.ofMinutes(10)).build()) {
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
        line("| " + String.format(Locale.ROOT, "%,d", n) + " | " + fmt(perRound) + " | " + fmt(n / (perRound / 1000))
            + " | " + fmt(oneByOnePerLease * n) + " |");
      }
    }
    line("");
  }

  private static List<Lease> acquireMany(LeaseStore store, String account, int from, int count) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(16);
    try {
      List<Future<Lease>> futures = new ArrayList<>();
      for (int i = from; i < from + count; i++) {
        LeaseKey key = LeaseKey.of(account, "s" + i);
        futures.add(pool.submit(() -> ((AcquireResult.Acquired) store.tryAcquire(key, account)).lease()));
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

  // ------------------------------------------------------------------ 3. guards

  /**
   * The guards: in-memory admit, fenced file write, fenced transaction, tool executor. Alone:
   * {@code ... -Dbench.args="group=guards"}.
   */
  private void guards() throws Exception {
    line("## Guards");
    line("");
    line("| benchmark | fenced | unfenced / direct | fenced / unfenced |");
    line("| --- | --- | --- | --- |");
    // In-memory guard admit, ns per op.
    for (int threads : List.of(1, 4)) {
      for (boolean manyKeys : List.of(false, true)) {
        InMemoryFenceGuard guard = InMemoryFenceGuard.create(TokenVerifier.trustEveryWriter());
        List<Throughput.OpFactory> f =
            List.of(
                (i, n) -> {
                  FencingToken[] tokens = new FencingToken[manyKeys ? 1024 : 1];
                  for (int k = 0; k < tokens.length; k++) {
                    tokens[k] = new FencingToken(LeaseKey.of("g", manyKeys ? "k" + i + "-" + k : "one"), 1, UUID.randomUUID());
                  }
                  int[] next = {0};
                  return () -> {
                    for (int r = 0; r < 1000; r++) {
                      guard.admit(tokens[next[0]++ & (tokens.length - 1)]);
                    }
                    return true;
                  };
                });
        double rate = Throughput.interleaved(f, threads, window, windows).get(0).successes() * 1000;
        line("| in-memory guard admit, " + threads + " thread(s), " + (manyKeys ? "1,024 keys per thread" : "one key")
            + " | " + fmt(1e9 / rate * threads) + " ns/op | | |");
      }
    }
    // File store: fenced write vs the same atomic write without fencing.
    Path dir = Files.createTempDirectory("leasehold-bench-files");
    FencedFileStore files = FencedFileStore.open(dir.resolve("store"), TokenVerifier.trustEveryWriter());
    Path plain = Files.createDirectories(dir.resolve("plain"));
    FencingToken token = new FencingToken(LeaseKey.of("g", "files"), 1, UUID.randomUUID());
    for (int size : List.of(1024, 1 << 20)) {
      byte[] content = new byte[size];
      List<Throughput.OpFactory> f =
          List.of(
              (i, n) -> () -> {
                files.write(token, "f.bin", content);
                return true;
              },
              (i, n) -> () -> {
                atomicWrite(plain, content);
                return true;
              });
      List<Throughput.Rate> r = Throughput.interleaved(f, 1, window, windows);
      line("| file write, " + (size == 1024 ? "1 KiB" : "1 MiB") + " | " + fmt(1e6 / r.get(0).successes()) + " us | "
          + fmt(1e6 / r.get(1).successes()) + " us | " + ratio(r.get(1).successes(), r.get(0).successes()) + " |");
    }
    // Database writer: fenced transaction vs the same transaction without the guard.
    HikariDataSource pool = db.pool(4);
    HighWaterSchema.defaults().apply(pool);
    try (Connection c = pool.getConnection();
        Statement s = c.createStatement()) {
      s.execute("CREATE TABLE IF NOT EXISTS bench_rows (id bigserial PRIMARY KEY, fence bigint, body text)");
    }
    FencedJdbcWriter writer = FencedJdbcWriter.builder(pool).verifier(TokenVerifier.trustEveryWriter()).build();
    FencedJdbcWriter atCommit = FencedJdbcWriter.builder(pool).verifier(TokenVerifier.trustEveryWriter()).admitAtCommit(true).build();
    FencingToken dbToken = new FencingToken(LeaseKey.of("g", "db"), 1, UUID.randomUUID());
    List<Throughput.OpFactory> dbf =
        List.of(
            (i, n) -> () -> {
              writer.write(dbToken, (c, t) -> insertRow(c, t.fence()));
              return true;
            },
            (i, n) -> () -> {
              atCommit.write(dbToken, (c, t) -> insertRow(c, t.fence()));
              return true;
            },
            (i, n) -> () -> {
              try (Connection c = pool.getConnection()) {
                c.setAutoCommit(false);
                insertRow(c, 1);
                c.commit();
                c.setAutoCommit(true);
              }
              return true;
            });
    List<Throughput.Rate> dr = Throughput.interleaved(dbf, 1, window, windows);
    line("| database writer, one INSERT per transaction (admission first) | " + fmt(1e6 / dr.get(0).successes()) + " us | "
        + fmt(1e6 / dr.get(2).successes()) + " us | " + ratio(dr.get(2).successes(), dr.get(0).successes()) + " |");
    line("| database writer, one INSERT per transaction (admitAtCommit) | " + fmt(1e6 / dr.get(1).successes()) + " us | "
        + fmt(1e6 / dr.get(2).successes()) + " us | " + ratio(dr.get(2).successes(), dr.get(1).successes()) + " |");
    // Tool executor vs a direct call, with and without the durable journal.
    FencedTool tool =
        new FencedTool() {
          @Override
          public String name() {
            return "noop";
          }

          @Override
          public com.fasterxml.jackson.databind.JsonNode call(ToolInvocation invocation) {
            return invocation.arguments();
          }
        };
    FencedToolExecutor memory = FencedToolExecutor.builder().verifier(TokenVerifier.trustEveryWriter()).journal(new MemoryToolJournal()).tool(tool).build();
    FencedToolExecutor durable =
        FencedToolExecutor.builder().verifier(TokenVerifier.trustEveryWriter()).journal(FileToolJournal.open(dir.resolve("tools.jsonl"))).tool(tool).build();
    com.fasterxml.jackson.databind.node.ObjectNode args = JsonNodeFactory.instance.objectNode().put("x", 1);
    FencingToken toolToken = new FencingToken(LeaseKey.of("g", "tool"), 1, UUID.randomUUID());
    ToolInvocation direct = new ToolInvocation(UUID.randomUUID(), "noop", args, toolToken, Optional.empty());
    List<Throughput.OpFactory> tf =
        List.of(
            (i, n) -> () -> memory.call(toolToken, "noop", args) != null,
            (i, n) -> () -> tool.call(direct) != null);
    List<Throughput.Rate> tr = Throughput.interleaved(tf, 1, window, windows);
    line("| tool executor, in-memory journal | " + fmt(1e6 / tr.get(0).successes()) + " us | "
        + String.format(Locale.ROOT, "%.3f", 1e6 / tr.get(1).successes()) + " us | overhead "
        + fmt(1e6 / tr.get(0).successes() - 1e6 / tr.get(1).successes()) + " us |");
    List<Throughput.Rate> tdr =
        Throughput.interleaved(List.of((i, n) -> () -> durable.call(toolToken, "noop", args) != null), 1, window, windows);
    line("| tool executor, durable file journal (3 forced appends per call) | " + fmt(1e6 / tdr.get(0).successes())
        + " us | | |");
    line("");
  }

  // ------------------------------------------------------------------ 3b. token verification

  /**
   * What verifying tokens costs (CONTRACT C15): a signature check of a token the verifier has not
   * seen (HMAC-SHA256, Ed25519), of one it has (a run's repeated writes), and the database
   * writer's transaction with each verification mode side by side. Alone: {@code ...
   * -Dbench.args="group=verification"}.
   */
  private void verification() throws Exception {
    line("## Token verification");
    line("");
    line("| benchmark | per operation |");
    line("| --- | --- |");
    LeaseKey key = LeaseKey.of("acct-7", "chat-1");
    for (SignatureScheme scheme : SignatureScheme.values()) {
      SigningKey signing = SigningKey.generate(scheme, "bench");
      TokenKeySet keys = TokenKeySet.of(signing.verificationKey());
      FencingToken[] tokens = new FencingToken[1024];
      for (int k = 0; k < tokens.length; k++) {
        tokens[k] = signing.sign(new FencingToken(key, k + 1, UUID.randomUUID()));
      }
      int batch = scheme == SignatureScheme.HMAC_SHA256 ? 1000 : 20;
      List<Throughput.OpFactory> f =
          List.of(
              (i, n) -> {
                int[] next = {0};
                return () -> {
                  for (int r = 0; r < batch; r++) {
                    // A fresh verifier has seen nothing: every check is a real signature check.
                    TokenVerifier.signedBy(keys).verify(tokens[next[0]++ & (tokens.length - 1)]);
                  }
                  return true;
                };
              });
      double rate = Throughput.interleaved(f, 1, window, windows).get(0).successes() * batch;
      line("| " + scheme.textName() + " signature check, token not seen before | " + fmt(1e6 / rate) + " us |");
    }
    SigningKey ed = SigningKey.generate(SignatureScheme.ED25519, "bench");
    TokenVerifier remembering = TokenVerifier.signedBy(TokenKeySet.of(ed.verificationKey()));
    FencingToken repeated = ed.sign(new FencingToken(key, 7, UUID.randomUUID()));
    List<Throughput.OpFactory> cached =
        List.of(
            (i, n) -> () -> {
              for (int r = 0; r < 1000; r++) {
                remembering.verify(repeated);
              }
              return true;
            });
    double cachedRate = Throughput.interleaved(cached, 1, window, windows).get(0).successes() * 1000;
    line("| ed25519, the same token again (a run's repeated writes) | " + fmt(1e6 / cachedRate) + " us |");

    // The database writer on the lease database, one INSERT per transaction, by verification mode.
    HikariDataSource pool = db.pool(4);
    HighWaterSchema.defaults().apply(pool);
    try (Connection c = pool.getConnection();
        Statement s = c.createStatement()) {
      s.execute("CREATE TABLE IF NOT EXISTS bench_rows (id bigserial PRIMARY KEY, fence bigint, body text)");
    }
    FencingToken token;
    try (LeaseStore store =
        LeaseStore.builder(pool).accessPolicy(AccessPolicy.allowAll()).ttl(Duration.ofHours(1)).tokenSigningKey(ed).build()) {
      token = store.tryAcquire(LeaseKey.of("acct-7", "verify-" + UUID.randomUUID()), "bench").acquiredLease().orElseThrow().identity();
    }
    FencedJdbcWriter trusting = FencedJdbcWriter.builder(pool).verifier(TokenVerifier.trustEveryWriter()).build();
    FencedJdbcWriter online = FencedJdbcWriter.builder(pool).verifyAgainstLeaseTable("leasehold_lease").build();
    FencedJdbcWriter signed =
        FencedJdbcWriter.builder(pool).verifier(TokenVerifier.signedBy(TokenKeySet.of(ed.verificationKey()))).build();
    List<Throughput.OpFactory> w =
        List.of(
            (i, n) -> () -> {
              trusting.write(token, (c, t) -> insertRow(c, t.fence()));
              return true;
            },
            (i, n) -> () -> {
              online.write(token, (c, t) -> insertRow(c, t.fence()));
              return true;
            },
            (i, n) -> () -> {
              signed.write(token, (c, t) -> insertRow(c, t.fence()));
              return true;
            });
    List<Throughput.Rate> wr = Throughput.interleaved(w, 1, window, windows);
    line("| database writer, trustEveryWriter() | " + fmt(1e6 / wr.get(0).successes()) + " us ("
        + fmt(wr.get(0).successes()) + " tx/s) |");
    line("| database writer, verifyAgainstLeaseTable (in the admission statement) | " + fmt(1e6 / wr.get(1).successes())
        + " us (" + ratio(wr.get(1).successes(), wr.get(0).successes()) + " of trusting) |");
    line("| database writer, signedBy(Ed25519), repeated token | " + fmt(1e6 / wr.get(2).successes())
        + " us (" + ratio(wr.get(2).successes(), wr.get(0).successes()) + " of trusting) |");
    line("");
  }

  // ------------------------------------------------------------------ 3c. the tool journal's size

  /**
   * Opening a tool journal with a long history (issue 13's target: 1M historical calls open in
   * under 0.5 s with under 50 MiB of heap). The history is written line by line as the executor
   * writes it (intended, started, finished; 1,000 sessions, 1 in 1,000 calls idempotent, 10 left in
   * doubt), then opened: the first open compacts it, a second open reads the compacted journal.
   * Alone: {@code ... -Dbench.args="group=journal"}.
   */
  private void journal(int calls) throws Exception {
    line("## Tool journal: opening after " + String.format(Locale.ROOT, "%,d", calls) + " historical calls");
    line("");
    Path dir = Files.createTempDirectory("leasehold-bench-journal");
    Path file = dir.resolve("tools.jsonl");
    com.fasterxml.jackson.databind.ObjectMapper json = new com.fasterxml.jackson.databind.ObjectMapper();
    try (java.io.BufferedWriter w = Files.newBufferedWriter(file)) {
      for (int i = 0; i < calls; i++) {
        LeaseKey key = LeaseKey.of("acct", "session-" + (i % 1000));
        FencingToken token = new FencingToken(key, 1 + i / 1000, new UUID(7, i / 1000));
        String call = new UUID(11, i).toString();
        com.fasterxml.jackson.databind.node.ObjectNode intended = json.createObjectNode();
        intended.put("event", "intended").put("call", call).put("tool", "send_message").put("token", token.toText());
        intended.set("arguments", json.createObjectNode().put("text", "message number " + i));
        if (i % 1000 == 0) {
          intended.put("idempotencyKey", "message-" + i);
        }
        w.write(json.writeValueAsString(intended));
        w.write('\n');
        w.write("{\"event\":\"started\",\"call\":\"" + call + "\",\"token\":\"" + token.toText() + "\"}\n");
        if (i < calls - 10) {
          w.write("{\"event\":\"finished\",\"call\":\"" + call + "\",\"result\":\"sent\"}\n");
        }
      }
    }
    long historyBytes = Files.size(file);
    long t0 = System.nanoTime();
    FileToolJournal first = FileToolJournal.open(file); // compacts: the file is far over 16 MiB
    long firstOpen = System.nanoTime() - t0;
    first = null;
    long compactedBytes = Files.size(file);
    Runtime rt = Runtime.getRuntime();
    System.gc();
    long heapBefore = rt.totalMemory() - rt.freeMemory();
    long t1 = System.nanoTime();
    FileToolJournal reopened = FileToolJournal.open(file);
    long reopen = System.nanoTime() - t1;
    System.gc();
    long heapAfter = rt.totalMemory() - rt.freeMemory();
    int live = 0;
    for (int s = 0; s < 1000; s++) {
      live += reopened.calls(LeaseKey.of("acct", "session-" + s)).size();
    }
    line("| measure | value |");
    line("| --- | --- |");
    line("| history written | " + fmt(historyBytes / 1048576.0) + " MiB, " + String.format(Locale.ROOT, "%,d", calls * 3L - 10) + " lines |");
    line("| first open (reads the history once, then compacts it) | " + fmt(firstOpen / 1e6) + " ms |");
    line("| compacted journal | " + fmt(compactedBytes / 1024.0) + " KiB, " + live + " live calls |");
    line("| reopen of the compacted journal | " + fmt(reopen / 1e6) + " ms |");
    line("| heap held by the reopened journal (after GC, approximate) | " + fmt((heapAfter - heapBefore) / 1048576.0) + " MiB |");
    line("");
  }

  private static int insertRow(Connection c, long fence) throws java.sql.SQLException {
    try (PreparedStatement ps = c.prepareStatement("INSERT INTO bench_rows (fence, body) VALUES (?, 'x')")) {
      ps.setLong(1, fence);
      return ps.executeUpdate();
    }
  }

  /** The same atomic write the file store makes, without the lock, the mark and the attribute. */
  private static void atomicWrite(Path dir, byte[] content) throws IOException {
    Path temp = dir.resolve("tmp-" + UUID.randomUUID());
    try (FileChannel ch = FileChannel.open(temp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
      ByteBuffer b = ByteBuffer.wrap(content);
      while (b.hasRemaining()) {
        ch.write(b);
      }
      ch.force(true);
    }
    Files.move(temp, dir.resolve("f.bin"), StandardCopyOption.ATOMIC_MOVE);
    try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
      d.force(true);
    }
  }

  // ------------------------------------------------------------------ 4. table size

  /**
   * Acquire + release with 1 M dead rows in the table vs an empty table. Alone: {@code ...
   * -Dbench.args="group=table"}.
   */
  private void tableSize() throws Exception {
    line("## Table size: acquire + release with 1,000,000 dead rows of other keys vs an empty table");
    line("");
    LeaseSchema big = new LeaseSchema("bench_big_lease", "bench_big_seq");
    LeaseSchema empty = new LeaseSchema("bench_empty_lease", "bench_empty_seq");
    HikariDataSource setup = db.pool(2);
    big.apply(setup);
    empty.apply(setup);
    try (Connection c = setup.getConnection();
        Statement s = c.createStatement()) {
      s.execute("TRUNCATE bench_big_lease");
      // Half released, half expired: the dead rows a busy table accumulates.
      s.execute(
          "INSERT INTO bench_big_lease (account_id, session_id, run_id, fence, holder, acquired_at, renewed_at,"
              + " expires_at, released_at) SELECT 'dead', 's' || g, gen_random_uuid(), nextval('bench_big_seq'), 'x',"
              + " now() - interval '3 days', now() - interval '3 days', now() - interval '3 days',"
              + " CASE WHEN g % 2 = 0 THEN now() - interval '3 days' END FROM generate_series(1, 1000000) g");
      s.execute("VACUUM ANALYZE bench_big_lease");
    }
    line("| threads | 1 M dead rows cycles/s | empty table cycles/s | ratio |");
    line("| --- | --- | --- | --- |");
    for (int threads : List.of(1, 4)) {
      List<Throughput.OpFactory> f = new ArrayList<>();
      for (LeaseSchema schema : List.of(big, empty)) {
        LeaseStore store =
            LeaseStore.builder(db.pool(threads + 2)).schema(schema).accessPolicy(AccessPolicy.allowAll()).build();
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
      line("| " + threads + " | " + fmt(r.get(0).successes()) + " | " + fmt(r.get(1).successes()) + " | "
          + ratio(r.get(0).successes(), r.get(1).successes()) + " |");
    }
    line("");
    // The sweeper on the same table: every dead row ended three days ago, live rows stay.
    try (LeaseStore sweeper =
        LeaseStore.builder(db.pool(2)).schema(big).accessPolicy(AccessPolicy.allowAll().withAdministrators(java.util.Set.of("ops"))).build()) {
      long t = System.nanoTime();
      long deleted = sweeper.sweep(Duration.ofDays(2), "ops");
      double ms = (System.nanoTime() - t) / 1e6;
      line("Sweep of that table (`sweep(Duration.ofDays(2))`, 10,000 rows walked per statement): "
          + String.format(Locale.ROOT, "%,d", deleted) + " rows deleted in " + fmt(ms) + " ms ("
          + fmt(deleted / (ms / 1000)) + " rows/s), while the live keys' rows stayed.");
    }
    line("");
  }

  // ------------------------------------------------------------------ 5. ablation

  /**
   * What each design choice of the lease table and statements costs the database, measured with
   * pgbench side by side (interleaved runs, median): CHECK constraints, a row trigger that does
   * nothing, publishing live status, and the opening that sets the timeouts. Alone: {@code ...
   * -Dbench.args="group=ablation"}.
   */
  private void ablation() throws Exception {
    line("## Ablation: what each choice costs the database (pgbench, tps)");
    line("");
    Optional<Path> pgbench = PgBench.find();
    if (pgbench.isEmpty() || db.port < 0) {
      line("pgbench not found (or an external database): skipped.");
      line("");
      return;
    }
    HikariDataSource setup = db.pool(2);
    LeaseSchema.defaults().apply(setup);
    try (Connection c = setup.getConnection();
        Statement s = c.createStatement()) {
      for (String t : List.of("ablation_plain", "ablation_checked", "ablation_triggered")) {
        s.execute("DROP TABLE IF EXISTS " + t);
        s.execute("CREATE TABLE " + t + " (LIKE leasehold_lease INCLUDING ALL) WITH (fillfactor = 70)");
        s.execute("INSERT INTO " + t + " (account_id, session_id, run_id, fence, acquired_at, renewed_at, expires_at,"
            + " released_at) SELECT 'pgb', 'c' || g, gen_random_uuid(), g, now(), now(), now(), now()"
            + " FROM generate_series(1, 64) g");
      }
      // The constraints and the trigger the lease table had before change set 4.
      s.execute("ALTER TABLE ablation_checked"
          + " ADD CHECK (char_length(account_id) BETWEEN 1 AND 128 AND char_length(session_id) BETWEEN 1 AND 128),"
          + " ADD CHECK (fence > 0), ADD CHECK (char_length(holder) <= 200)");
      s.execute("CREATE OR REPLACE FUNCTION ablation_idle() RETURNS trigger LANGUAGE plpgsql AS"
          + " $$ BEGIN IF current_setting('leasehold.notify', true) = 'off' THEN RETURN NULL; END IF; RETURN NULL; END $$");
      s.execute("CREATE TRIGGER ablation_idle_insert AFTER INSERT ON ablation_triggered FOR EACH ROW"
          + " EXECUTE FUNCTION ablation_idle()");
      s.execute("CREATE TRIGGER ablation_idle_change AFTER UPDATE ON ablation_triggered FOR EACH ROW"
          + " WHEN (OLD.run_id IS DISTINCT FROM NEW.run_id OR OLD.released_at IS DISTINCT FROM NEW.released_at)"
          + " EXECUTE FUNCTION ablation_idle()");
    }
    db.closeOpened();
    LeaseStatements quiet = new LeaseStatements(Duration.ofSeconds(1), Duration.ofSeconds(5));
    LeaseStatements loud = new LeaseStatements(Duration.ofSeconds(1), Duration.ofSeconds(5), true);
    String twoUpdates =
        "UPDATE %1$s SET expires_at = statement_timestamp() + interval '30 s', renewed_at = statement_timestamp()"
            + " WHERE account_id = 'pgb' AND session_id = 'c' || :client_id;\n";
    record Pair(String what, String with, String without) {}
    List<Pair> pairs =
        List.of(
            new Pair("three CHECK constraints (two plain updates per transaction)",
                String.format(Locale.ROOT, twoUpdates + twoUpdates, "ablation_checked"),
                String.format(Locale.ROOT, twoUpdates + twoUpdates, "ablation_plain")),
            new Pair("an idle row trigger (acquire + release)",
                PgBench.leaseholdScript(quiet, "ablation_triggered", true),
                PgBench.leaseholdScript(quiet, "ablation_plain", true)),
            new Pair("publishing live status, pg_notify (acquire + release)",
                PgBench.leaseholdScript(loud, "ablation_plain", true),
                PgBench.leaseholdScript(quiet, "ablation_plain", true)),
            new Pair("the opening that sets both timeouts (acquire + release)",
                PgBench.leaseholdScript(quiet, "ablation_plain", true),
                PgBench.leaseholdScript(quiet, "ablation_plain", false)));
    line("`pgbench -n -M prepared -c N -j N -T " + window.toSeconds() + "`, with and without each choice in turn, median of "
        + windows + " runs each.");
    line("");
    line("| choice | clients | with | without | with / without |");
    line("| --- | --- | --- | --- | --- |");
    for (Pair p : pairs) {
      for (int clients : List.of(2, 16)) {
        double[] with = new double[windows];
        double[] without = new double[windows];
        for (int w = 0; w < windows; w++) {
          with[w] = PgBench.run(pgbench.get(), db, p.with(), clients, window);
          without[w] = PgBench.run(pgbench.get(), db, p.without(), clients, window);
        }
        double a = Throughput.median(with);
        double b = Throughput.median(without);
        line("| " + p.what() + " | " + clients + " | " + fmt(a) + " | " + fmt(b) + " | " + ratio(a, b) + " |");
      }
    }
    line("");
  }

  private static String fmt(double v) {
    if (v >= 100) {
      return String.format(Locale.ROOT, "%,.0f", v);
    }
    return String.format(Locale.ROOT, "%.2f", v);
  }

  private static String ratio(double a, double b) {
    return b == 0 ? "-" : String.format(Locale.ROOT, "%.2fx", a / b);
  }
}
