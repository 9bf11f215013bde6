package io.leasehold.reliability;

import com.zaxxer.hikari.HikariDataSource;
import io.leasehold.devdb.LocalPostgres;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.lease.LeaseSchema;
import io.leasehold.testkit.ChildJvm;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * One torture run: starts the database, the worker threads and the worker JVMs, injects the seeded
 * fault schedule, stops, checks liveness, and runs the {@link Checker} over every history and the
 * resources' logs.
 */
final class TortureRun {
  /**
   * What a run found.
   *
   * @param config the settings
   * @param operations operations recorded
   * @param counts operations by type and outcome
   * @param faults faults injected, by kind
   * @param violations what the checker found
   */
  record Report(
      TortureConfig config,
      int operations,
      Map<String, Integer> counts,
      Map<String, Integer> faults,
      List<Checker.Violation> violations) {
    boolean passed() {
      return violations.isEmpty();
    }
  }

  /** A scheduled fault of the injector (pauses are scheduled by each process). */
  private record Fault(long atMillis, String kind, int target) {}

  // JUL loggers are held weakly: keep a reference so the level sticks.
  private static final java.util.logging.Logger LIQUIBASE =
      java.util.logging.Logger.getLogger("liquibase");

  private final TortureConfig config;
  private final PrintStream out;
  private final DatabaseFaults databaseFaults;
  private final Path dir;
  private final long startNanos = System.nanoTime();
  private final List<Process> children = new ArrayList<>();
  private final List<String> childNames = new ArrayList<>();
  private int spawned;

  private TortureRun(TortureConfig config, PrintStream out, DatabaseFaults databaseFaults) {
    this.config = config;
    this.out = out;
    this.databaseFaults = databaseFaults;
    try {
      this.dir = RunDirectory.create("torture-");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static Report run(TortureConfig config, PrintStream out) {
    return new TortureRun(config, out, null).execute();
  }

  /**
   * A run against a database that can fail over: besides the configured faults, {@code
   * databaseFaults} injects one database fault per its interval while the workers run.
   */
  static Report run(TortureConfig config, PrintStream out, DatabaseFaults databaseFaults) {
    return new TortureRun(config, out, databaseFaults).execute();
  }

  private Report execute() {
    LIQUIBASE.setLevel(java.util.logging.Level.WARNING);
    out.println("torture run: " + String.join(" ", config.describe()));
    out.println("(replay with seed=" + config.seed() + ")");
    // Without fsync: the run is about interleavings and faults, not commit cost.
    LocalPostgres pg =
        config.jdbcUrl().isEmpty() ? LocalPostgres.builder().durable(false).start() : null;
    String url = config.jdbcUrl().orElseGet(() -> pg.jdbcUrl());
    try (HikariDataSource admin = WorkerProcess.pool(url, "injector", 4);
        History faults = new History(dir.resolve("history-injector.jsonl"))) {
      LeaseSchema.defaults().apply(admin);
      TortureResources.createSchema(admin);
      List<Fault> schedule = schedule(pg != null);
      out.println(
          "fault schedule: "
              + schedule.size()
              + " faults, first: "
              + schedule.stream().limit(6).map(f -> f.kind() + "@" + f.atMillis() + "ms").toList());

      for (int i = 0; i < config.processes(); i++) {
        childNames.add(null);
        children.add(null);
        spawn(i, url, config.duration());
      }
      Thread local =
          new Thread(
              () -> {
                try {
                  WorkerProcess.run(
                      url,
                      dir,
                      "main",
                      config.threads(),
                      config.seed(),
                      config.ttl(),
                      config.duration(),
                      config.keys(),
                      config.broken(),
                      dir.resolve("history-main.jsonl"));
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                }
              },
              "torture-main");
      local.start();
      inject(schedule, admin, pg, url, faults);
      local.join(config.duration().toMillis() + 60_000);
      for (Process p : children) {
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
          p.destroyForcibly();
        }
      }
      liveness(admin, faults);
      return check(admin);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    } finally {
      for (Process p : children) {
        if (p != null) {
          p.destroyForcibly();
        }
      }
      if (pg != null) {
        pg.close();
      }
    }
  }

  private List<Fault> schedule(boolean canRestart) {
    Random random = new Random(config.seed());
    List<String> kinds = new ArrayList<>();
    for (String k : List.of("conn", "lock", "kill")) {
      if (config.faults().contains(k) && (!k.equals("kill") || config.processes() > 0)) {
        kinds.add(k);
      }
    }
    List<Fault> faults = new ArrayList<>();
    long end = config.duration().toMillis() * 8 / 10;
    for (long t = 500 + random.nextInt(1000);
        t < end && !kinds.isEmpty();
        t += 400 + random.nextInt(1200)) {
      faults.add(new Fault(t, kinds.get(random.nextInt(kinds.size())), random.nextInt(1 << 16)));
    }
    if (databaseFaults != null) {
      long every = databaseFaults.every().toMillis();
      for (long t = every; t + every / 2 < config.duration().toMillis(); t += every) {
        faults.add(new Fault(t, "database", (int) (t / every)));
      }
    }
    if (canRestart && config.faults().contains("restart")) {
      for (long t = config.duration().toMillis() * 4 / 10; t < end; t += 120_000) {
        faults.add(new Fault(t, "restart", 0));
      }
    }
    faults.sort((a, b) -> Long.compare(a.atMillis(), b.atMillis()));
    return faults;
  }

  private void inject(
      List<Fault> schedule, HikariDataSource admin, LocalPostgres pg, String url, History h)
      throws InterruptedException {
    for (Fault f : schedule) {
      long wait = f.atMillis() - elapsedMillis();
      if (wait > 0) {
        Thread.sleep(wait);
      }
      long t = System.nanoTime();
      String detail;
      try {
        detail =
            switch (f.kind()) {
              case "conn" -> killConnection(admin, f.target());
              case "lock" -> holdRowLock(url, f.target());
              case "kill" -> killProcess(f.target(), url);
              case "database" -> databaseFaults.inject(f.target());
              case "restart" -> {
                pg.restart();
                yield "restarted PostgreSQL";
              }
              default -> throw new IllegalStateException(f.kind());
            };
      } catch (RuntimeException e) {
        detail = f.kind() + " failed: " + e;
      }
      h.record(
          Op.injected(f.kind(), Op.Type.FAULT, null, Op.Outcome.OK, t, f.kind() + ": " + detail));
    }
    long rest = config.duration().toMillis() - elapsedMillis();
    if (rest > 0) {
      Thread.sleep(rest);
    }
  }

  private String killConnection(HikariDataSource admin, int target) {
    try (Connection c = admin.getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT pid, application_name FROM pg_stat_activity WHERE application_name LIKE 'torture-%'"
                    + " AND application_name <> 'torture-injector' ORDER BY pid")) {
      List<Integer> pids = new ArrayList<>();
      List<String> names = new ArrayList<>();
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          pids.add(rs.getInt(1));
          names.add(rs.getString(2));
        }
      }
      if (pids.isEmpty()) {
        return "no connection to kill";
      }
      int i = target % pids.size();
      try (Statement s = c.createStatement()) {
        s.execute("SELECT pg_terminate_backend(" + pids.get(i) + ")");
      }
      return "terminated a connection of " + names.get(i);
    } catch (java.sql.SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * Holds one lease row locked past the lock timeout, from a side connection, in the background.
   */
  private String holdRowLock(String url, int target) {
    LeaseKey key = WorkerProcess.keys(config.keys()).get(target % config.keys());
    long holdMillis = Math.max(300, config.ttl().toMillis() / 2);
    Thread t =
        new Thread(
            () -> {
              try (HikariDataSource one = WorkerProcess.pool(url, "injector-lock", 1);
                  Connection c = one.getConnection()) {
                c.setAutoCommit(false);
                try (PreparedStatement ps =
                    c.prepareStatement(
                        "SELECT 1 FROM leasehold_lease WHERE account_id = ? AND session_id = ? FOR UPDATE")) {
                  ps.setString(1, key.accountId());
                  ps.setString(2, key.sessionId());
                  ps.executeQuery().close();
                }
                Thread.sleep(holdMillis);
                c.rollback();
              } catch (Exception e) {
                // The restart fault may cut this connection too; the lock then ends early.
              }
            },
            "torture-lock");
    t.setDaemon(true);
    t.start();
    return "holding the row lock of " + key + " for " + holdMillis + " ms";
  }

  private String killProcess(int target, String url) {
    int i = target % children.size();
    Process p = children.get(i);
    String name = childNames.get(i);
    p.destroyForcibly();
    try {
      p.waitFor(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    Duration rest = config.duration().minusMillis(elapsedMillis());
    if (rest.toMillis() > 500) {
      spawn(i, url, rest);
      return "SIGKILL " + name + ", replaced by " + childNames.get(i);
    }
    return "SIGKILL " + name;
  }

  private void spawn(int i, String url, Duration duration) {
    String name = "p" + i + "-" + (++spawned);
    try {
      ChildJvm child =
          ChildJvm.startLogged(
              TortureWorkerMain.class,
              dir.resolve(name + ".out"),
              dir.resolve(name + ".err"),
              url,
              dir.toString(),
              name,
              Integer.toString(config.workersPerProcess()),
              Long.toString(config.seed() + 1000L * (i + 1)),
              Long.toString(config.ttl().toMillis()),
              Long.toString(duration.toMillis()),
              Integer.toString(config.keys()),
              Boolean.toString(config.broken()),
              dir.resolve("history-" + name + ".jsonl").toString());
      children.set(i, child.process());
      childNames.set(i, name);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** After the faults: every key must become acquirable within TTL plus a bound. */
  private void liveness(HikariDataSource admin, History h) throws InterruptedException {
    try (RealClient client = new RealClient(admin, config.ttl())) {
      for (LeaseKey key : WorkerProcess.keys(config.keys())) {
        long t = System.nanoTime();
        long deadline = t + config.ttl().plusSeconds(5).toNanos();
        LeaseClient.Held held = null;
        while (held == null && System.nanoTime() < deadline) {
          try {
            held = client.acquire(key);
          } catch (RuntimeException e) {
            // keep trying until the bound
          }
          if (held == null) {
            Thread.sleep(50);
          }
        }
        long waited = (System.nanoTime() - t) / 1_000_000;
        if (held != null) {
          LeaseClient.Grant g = held.grant();
          h.record(
              new Op(
                  "injector",
                  "liveness",
                  Op.Type.LIVENESS,
                  key,
                  g.identity(),
                  Op.Outcome.OK,
                  null,
                  null,
                  false,
                  g.acquiredAt(),
                  g.expiresAt(),
                  g.acquiredAt(),
                  t,
                  System.nanoTime(),
                  "acquired after " + waited + " ms"));
          held.release();
        } else {
          h.record(
              Op.injected(
                  "liveness",
                  Op.Type.LIVENESS,
                  key,
                  Op.Outcome.ERROR,
                  t,
                  "not acquired within " + waited + " ms"));
        }
      }
    }
  }

  private Report check(HikariDataSource admin) {
    List<Path> files;
    try (Stream<Path> s = Files.list(dir)) {
      files = s.filter(p -> p.getFileName().toString().startsWith("history-")).sorted().toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    List<Op> history = History.read(files);
    TortureResources.Logs logs =
        TortureResources.read(
            dir, admin, new java.util.HashSet<>(WorkerProcess.keys(config.keys())));
    List<Checker.Violation> violations = Checker.check(history, logs);
    Map<String, Integer> counts = new TreeMap<>();
    Map<String, Integer> faults = new TreeMap<>();
    for (Op op : history) {
      if (op.type() == Op.Type.FAULT) {
        String kind =
            op.detail().startsWith("pause")
                ? "pause"
                : op.detail().substring(0, op.detail().indexOf(':'));
        faults.merge(kind, 1, Integer::sum);
      } else {
        counts.merge(op.type() + " " + op.outcome(), 1, Integer::sum);
      }
    }
    Report report = new Report(config, history.size(), counts, faults, violations);
    print(report);
    return report;
  }

  private void print(Report r) {
    out.println(
        "operations: "
            + r.operations()
            + " in "
            + elapsedMillis() / 1000
            + " s, from "
            + (children.size() + 1)
            + " live process slots ("
            + spawned
            + " worker JVMs started)");
    r.counts().forEach((k, v) -> out.println("  " + k + ": " + v));
    out.println("faults: " + r.faults());
    if (r.passed()) {
      out.println("violations: 0");
    } else {
      Map<String, Integer> byRule = new TreeMap<>();
      r.violations().forEach(v -> byRule.merge(v.rule(), 1, Integer::sum));
      out.println("violations: " + r.violations().size() + " " + byRule + "; the first:");
      r.violations().stream().limit(5).forEach(v -> out.println("  " + v));
    }
    out.println("history and resource logs: " + dir);
  }

  private long elapsedMillis() {
    return (System.nanoTime() - startNanos) / 1_000_000;
  }
}
