package io.leasehold.benchmarks;

import io.leasehold.lease.LeaseSchema;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Runs every benchmark (or one group) on one PostgreSQL instance and writes a Markdown report to
 * {@code target/benchmarks.md}. Settings are {@code name=value} arguments: {@code group=} {@code
 * cycle}, {@code pgbench}, {@code renewal}, {@code guards}, {@code eviction}, {@code table}, {@code
 * ablation}, {@code statements} or {@code ceiling}, among others (default all), {@code window=2s},
 * {@code windows=3}, {@code threads=1,4,16}, {@code jdbc-url=...}, {@code
 * keys=1000,10000,100000,1000000}, {@code other-jdbc-url=...} and {@code held=acquire|insert}
 * (group {@code ceiling}; {@code threads=none} leaves out its cycles), {@code
 * data-dir=/dev/shm/leasehold-bench} (where the embedded server keeps its data: a tmpfs directory
 * measures CPU per operation, with flushes nearly free; fsync stays on).
 *
 * <pre>
 * mvn -q -pl benchmarks -am -DskipTests -Pbench verify                              # everything
 * mvn -q -pl benchmarks -am -DskipTests -Pbench verify -Dbench.args="group=cycle"   # one group
 * </pre>
 */
public final class BenchMain {
  private static final java.util.logging.Logger LIQUIBASE =
      java.util.logging.Logger.getLogger("liquibase");

  private BenchMain() {}

  /** Every group by name, in the order a full run takes them. */
  private static final Map<String, BenchGroup.Runner> GROUPS = new LinkedHashMap<>();

  static {
    for (Map.Entry<String, BenchGroup.Runner> e :
        List.of(
            group("statements", c -> new StatementsGroup(c).statements()),
            group("cycle", c -> new CycleBench(c).cycles()),
            group("peers", c -> new PeersBench(c).peers()),
            group("refusal", c -> new ContentionGroups(c).refusals()),
            group("waiting", c -> new ContentionGroups(c).waiting()),
            group("pgbench", c -> new PgBenchGroup(c).pgbench()),
            group("renewal", c -> new RenewalBench(c).renewal()),
            group("guards", c -> new GuardBench(c).guards()),
            group("verification", c -> new VerificationBench(c).verification()),
            group("flood", c -> new FloodBench(c).flood()),
            group("eviction", c -> new EvictionBench(c).eviction()),
            group("toolcalls", c -> new ToolCallBench(c).toolCalls()),
            group("journal", c -> new JournalBench(c).journal(1_000_000)),
            group("table", c -> new TableBench(c).tableSize()),
            group("ceiling", c -> new CeilingBench(c).ceiling()),
            group("ablation", c -> new AblationBench(c).ablation()))) {
      GROUPS.put(e.getKey(), e.getValue());
    }
  }

  private static Map.Entry<String, BenchGroup.Runner> group(String name, BenchGroup.Runner runner) {
    return Map.entry(name, runner);
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
    Set<String> groups = GROUPS.keySet();
    Duration window = Duration.ofSeconds(2);
    int windows = 3;
    List<Integer> threads = List.of(1, 4, 16);
    Optional<String> url = Optional.empty();
    Optional<java.nio.file.Path> dataDir = Optional.empty();
    List<Integer> keys = List.of(1_000, 10_000, 100_000, 1_000_000);
    Optional<String> otherUrl = Optional.empty();
    boolean heldByInsert = false;
    for (String a : args) {
      if (a.isBlank()) {
        continue;
      }
      String[] kv = a.split("=", 2);
      switch (kv[0]) {
        case "group" -> groups = Set.of(kv[1].split(","));
        case "window" ->
            window = Duration.ofMillis(Long.parseLong(kv[1].replace("ms", "").replace("s", "000")));
        case "windows" -> windows = Integer.parseInt(kv[1]);
        case "threads" ->
            threads =
                kv[1].equals("none")
                    ? List.of()
                    : java.util.Arrays.stream(kv[1].split(",")).map(Integer::valueOf).toList();
        case "jdbc-url" -> url = Optional.of(kv[1]);
        case "data-dir" -> dataDir = Optional.of(java.nio.file.Path.of(kv[1]));
        case "keys" ->
            keys = java.util.Arrays.stream(kv[1].split(",")).map(Integer::valueOf).toList();
        case "other-jdbc-url" -> otherUrl = Optional.of(kv[1]);
        case "held" ->
            heldByInsert =
                switch (kv[1]) {
                  case "acquire" -> false;
                  case "insert" -> true;
                  default ->
                      throw new IllegalArgumentException("held= takes acquire or insert: " + a);
                };
        default -> throw new IllegalArgumentException("unknown setting " + a);
      }
    }
    if (!GROUPS.keySet().containsAll(groups)) {
      throw new IllegalArgumentException(
          "unknown group in " + groups + "; the groups are " + GROUPS.keySet());
    }
    try (BenchDatabase db = new BenchDatabase(url, dataDir)) {
      BenchGroup.Context c =
          new BenchGroup.Context(
              db, window, windows, threads, keys, otherUrl, heldByInsert, new StringBuilder());
      header(c);
      for (Map.Entry<String, BenchGroup.Runner> g : GROUPS.entrySet()) {
        if (groups.contains(g.getKey())) {
          g.getValue().run(c);
        }
      }
      return c.md().toString();
    }
  }

  private static void header(BenchGroup.Context c) throws Exception {
    try (Connection conn = c.db().connection();
        Statement s = conn.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT version(), current_setting('fsync'), current_setting('synchronous_commit'),"
                    + " current_setting('shared_buffers')")) {
      rs.next();
      StringBuilder md = c.md();
      for (String line :
          List.of(
              "# Benchmark run",
              "",
              "- machine: "
                  + Runtime.getRuntime().availableProcessors()
                  + " cores, Java "
                  + System.getProperty("java.version"),
              "- database: "
                  + rs.getString(1).replaceAll(" on .*", "")
                  + ", fsync="
                  + rs.getString(2)
                  + ", synchronous_commit="
                  + rs.getString(3)
                  + ", shared_buffers="
                  + rs.getString(4)
                  + ", data directory on "
                  + c.db().storage(),
              "- method: each cell is the median of "
                  + c.windows()
                  + " windows of "
                  + c.window().toMillis()
                  + " ms after one warm-up window; competitors of a row run window by window in turn",
              "")) {
        md.append(line).append('\n');
        System.out.println(line);
      }
    }
    LeaseSchema.defaults().apply(c.db().pool(1));
    Competitors.createPeerTables(c.db());
  }
}
