package io.leasehold.benchmarks;

import java.sql.Connection;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.StringJoiner;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.ToLongFunction;

/**
 * The issue 50 comparison (group {@code peers}): Leasehold built exactly as the README builds it
 * against ShedLock's real plain provider ({@code JdbcLockProvider} of shedlock-provider-jdbc
 * 6.9.2), and the store's default set-up (a pool shared with the application, the timeouts sent
 * with every statement) beside them, in alternating windows. Each cell reports the spread of its
 * windows (minimum, median, maximum), the counters per cycle that do not depend on the machine's
 * load (WAL records and flushes, statements, commits), CPU time per attempt, and the p50 of a
 * refused attempt under contention.
 */
final class PeersBench extends BenchGroup {
  private static final int KEYS = PeersContenders.KEYS;
  private static final List<String> NAMES = PeersContenders.NAMES;
  private final PeersContenders contenders;

  PeersBench(BenchGroup.Context context) {
    super(context);
    this.contenders = new PeersContenders(db);
  }

  /** One window of one contender. */
  record Window(
      double cyclesPerSecond,
      long cycles,
      long refusals,
      double clientMicros,
      double serverMicros,
      ServerStats stats,
      long[] refusalNanos) {
    long attempts() {
      return Math.max(1, cycles + refusals);
    }

    double per(long count) {
      return count < 0 ? Double.NaN : (double) count / attempts();
    }
  }

  /**
   * Every cell of the comparison, in this regime (the data directory's file system decides it: run
   * once on disk and once with {@code data-dir=/dev/shm/...}). Alone: {@code mvn -q -pl benchmarks
   * -am -DskipTests -Pbench verify -Dbench.args="group=peers window=4s windows=3 threads=1,16"}.
   */
  void peers() throws Exception {
    String regime = db.storage().startsWith("tmpfs") ? "tmpfs" : "disk";
    line(
        "## Leasehold as the README builds it, against ShedLock's plain provider (" + regime + ")");
    line("");
    line(
        "Alternating windows of "
            + window.toMillis()
            + " ms, "
            + windows
            + " per contender after a warm-up window; "
            + KEYS
            + " keys shared out between the threads uncontended, one key contended; TTL 30 s."
            + " README: one `LeaseStore` on a default HikariCP pool, `dedicatedPool(true)`."
            + " Default store: the same without `dedicatedPool(true)` (the timeouts sent with every"
            + " statement). ShedLock: `JdbcLockProvider` (shedlock-provider-jdbc 6.9.2) on a"
            + " default HikariCP pool, `lockAtLeastFor` zero.");
    line("");
    List<String> table = new ArrayList<>();
    List<String> perCycle = new ArrayList<>();
    List<String> spread = new ArrayList<>();
    List<String> refusals = new ArrayList<>();
    // Not among the connections closed between cells.
    try (Connection statsConnection =
        java.sql.DriverManager.getConnection(db.url, db.user, db.password)) {
      boolean statements = ServerStats.statementsInstalled(statsConnection);
      counted(statsConnection, statements);
      for (boolean contended : List.of(false, true)) {
        String load = regime + ", " + (contended ? "contended" : "uncontended");
        for (int threads : threadCounts) {
          List<List<Window>> cell = cell(contended, threads, statsConnection, statements);
          db.closeOpened();
          double shed = medianRate(cell.get(2));
          table.add(
              "| "
                  + load
                  + " | "
                  + threads
                  + " | "
                  + ratio(medianRate(cell.get(0)), shed)
                  + " | "
                  + ratio(medianRate(cell.get(1)), shed)
                  + " | "
                  + spreadOf(cell.get(0))
                  + " | "
                  + spreadOf(cell.get(1))
                  + " | "
                  + spreadOf(cell.get(2))
                  + " | "
                  + ratio(minRate(cell.get(0)), maxRate(cell.get(0)))
                  + " |");
          for (int c = 0; c < NAMES.size(); c++) {
            perCycle.add(perCycleRow(load, threads, NAMES.get(c), cell.get(c)));
            spread.add(windowsRow(load, threads, NAMES.get(c), cell.get(c)));
          }
          if (contended) {
            double p0 = refusalP50(cell.get(0));
            double p1 = refusalP50(cell.get(1));
            double p2 = refusalP50(cell.get(2));
            refusals.add(
                "| "
                    + load
                    + " | "
                    + threads
                    + " | "
                    + p50(p0)
                    + " | "
                    + p50(p1)
                    + " | "
                    + p50(p2)
                    + " | "
                    + (Double.isNaN(p0 + p2) ? "-" : ratio(p0, p2))
                    + " | "
                    + (Double.isNaN(p1 + p2) ? "-" : ratio(p1, p2))
                    + " |");
          }
        }
      }
    }
    line(
        "| regime, load | threads | README / ShedLock | default store / ShedLock | README cycles/s:"
            + " min, median, max | default store | ShedLock | README's worst window / its best |");
    line("| --- | --- | --- | --- | --- | --- | --- | --- |");
    table.forEach(this::line);
    line("");
    line(
        "Per attempt (a cycle or a refused try), medians over the windows; counters from"
            + " `pg_stat_wal`, `pg_stat_statements`, `pg_stat_database` and the WAL writer's"
            + " `/proc` (PostgreSQL 15 has no `pg_stat_io`):");
    line("");
    line(
        "| regime, load | threads | contender | WAL records | WAL flushes | WAL writes | full-page"
            + " images | WAL bytes | statements | commits | WAL writer wake-ups | CPU us, client /"
            + " server |");
    line("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
    perCycle.forEach(this::line);
    line("");
    line(
        "Every window, in the order run: cycles/s (WAL flushes per attempt, CPU per attempt client /"
            + " server):");
    line("");
    line("| regime, load | threads | contender | windows |");
    line("| --- | --- | --- | --- |");
    spread.forEach(this::line);
    line("");
    line("A refused attempt's latency, p50 in microseconds, in the contended cells:");
    line("");
    line(
        "| regime, load | threads | README | default store | ShedLock | README / ShedLock | default"
            + " / ShedLock |");
    line("| --- | --- | --- | --- | --- | --- | --- |");
    refusals.forEach(this::line);
    line("");
  }

  /** Attempts of one thread in the counting pass (a few in a smoke run's short windows). */
  private int counted() {
    return window.toMillis() >= 1_000 ? 2_000 : 20;
  }

  /**
   * What one cycle and one refused attempt send and cost, counted exactly on an otherwise idle
   * server: {@link #counted()} attempts from one thread on a fresh pool, read before its first
   * attempt and after its pool has closed (a backend reports its statistics at most once a second
   * while it runs, and at once when it exits). The warm-up (and the holder of a refused key) runs
   * on a pool of its own, and has reported before the first reading.
   */
  private void counted(Connection stats, boolean statements) throws Exception {
    line(
        "What each contender sends and costs, counted over "
            + counted()
            + " attempts of one thread:");
    line("");
    line(
        "| contender | attempt | round trips | statements | commits | WAL records | WAL flushes |"
            + " WAL writes | WAL bytes | WAL writer wake-ups |");
    line("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
    for (int c = 0; c < NAMES.size(); c++) {
      for (boolean refused : List.of(false, true)) {
        List<String> keys = refused ? List.of("held") : PeersContenders.keys(0, 1, false);
        // The warm-up: every key has its row, the code is compiled; its statistics are reported
        // before the first reading.
        PeersContenders.Contender warm = contenders.contender(c);
        AutoCloseable held = refused ? warm.hold("held") : () -> {};
        PeersContenders.Attempt warmAttempt = warm.attempt(keys);
        for (int i = 0; i < (counted() < KEYS ? counted() : KEYS); i++) {
          warmAttempt.run();
        }
        PeersContenders.report(warm.pool());
        PeersContenders.Contender measured = contenders.contender(c);
        PeersContenders.Attempt attempt = measured.attempt(keys);
        Thread.sleep(300); // the new pool's connections are open and have reported their start
        ServerStats before = ServerStats.read(stats, statements);
        long trips = CountingSocketFactory.roundTrips();
        for (int i = 0; i < counted(); i++) {
          if (attempt.run() == refused) {
            throw new IllegalStateException(NAMES.get(c) + ": an attempt went otherwise");
          }
        }
        long roundTrips = CountingSocketFactory.roundTrips() - trips;
        held.close();
        db.closeOpened();
        Thread.sleep(300); // the backends have exited, and reported as they did
        countedRow(
            NAMES.get(c),
            refused ? "refused" : "acquire + release",
            roundTrips,
            ServerStats.read(stats, statements).minus(before));
      }
    }
    line("");
  }

  private void countedRow(String name, String what, long roundTrips, ServerStats d) {
    double n = counted();
    line(
        "| "
            + name
            + " | "
            + what
            + " | "
            + fmt(roundTrips / n)
            + " | "
            + (d.statements() < 0 ? "n/a" : fmt((d.statements() - 1) / n)) // less the reading
            + " | "
            + fmt((d.commits() - 1) / n)
            + " | "
            + fmt(d.walRecords() / n)
            + " | "
            + fmt(d.walSyncs() / n)
            + " | "
            + fmt(d.walWrites() / n)
            + " | "
            + fmt(d.walBytes() / n)
            + " | "
            + (d.walWriterWakeups() < 0 ? "n/a" : fmt(d.walWriterWakeups() / n))
            + " |");
  }

  /** The windows of every contender of one cell, measured in turn. */
  private List<List<Window>> cell(
      boolean contended, int threads, Connection statsConnection, boolean statements)
      throws Exception {
    List<List<PeersContenders.Attempt>> attempts = new ArrayList<>();
    List<PeersContenders.Contender> cs = contenders.contenders();
    for (PeersContenders.Contender c : cs) {
      List<PeersContenders.Attempt> perThread = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        perThread.add(c.attempt(PeersContenders.keys(t, threads, contended)));
      }
      attempts.add(perThread);
    }
    List<List<Window>> result = new ArrayList<>();
    for (int c = 0; c < attempts.size(); c++) {
      run(
          attempts.get(c),
          cs.get(c),
          Optional.empty(),
          statements); // warm-up: every key has its row
      result.add(new ArrayList<>());
    }
    for (int w = 0; w < windows; w++) {
      for (int c = 0; c < attempts.size(); c++) {
        result
            .get(c)
            .add(run(attempts.get(c), cs.get(c), Optional.of(statsConnection), statements));
      }
    }
    return result;
  }

  /** Runs one window of every thread's attempts; reads the counters when a connection is given. */
  private Window run(
      List<PeersContenders.Attempt> attempts,
      PeersContenders.Contender contender,
      Optional<Connection> stats,
      boolean statements)
      throws Exception {
    int n = attempts.size();
    long[] ok = new long[n];
    long[] refused = new long[n];
    long[][] refusedNanos = new long[n][];
    AtomicBoolean stop = new AtomicBoolean();
    CyclicBarrier start = new CyclicBarrier(n + 1);
    List<Thread> threads = new ArrayList<>();
    List<Exception> errors = new java.util.concurrent.CopyOnWriteArrayList<>();
    for (int t = 0; t < n; t++) {
      int i = t;
      PeersContenders.Attempt attempt = attempts.get(t);
      Thread thread =
          new Thread(
              () -> {
                long[] lat = new long[1 << 12];
                int count = 0;
                try {
                  start.await();
                  while (!stop.get()) {
                    long t0 = System.nanoTime();
                    if (attempt.run()) {
                      ok[i]++;
                    } else {
                      long d = System.nanoTime() - t0;
                      if (count == lat.length) {
                        lat = Arrays.copyOf(lat, count * 2);
                      }
                      lat[count++] = d;
                    }
                  }
                } catch (Exception e) {
                  errors.add(e);
                }
                refused[i] = count;
                refusedNanos[i] = Arrays.copyOf(lat, count);
              });
      thread.start();
      threads.add(thread);
    }
    ServerStats before = stats.isPresent() ? ServerStats.read(stats.get(), statements) : null;
    long client0 = Throughput.cpuClock().client();
    long server0 = Throughput.cpuClock().server();
    Throughput.runWindow(start, window, stop, threads, errors);
    long client = Throughput.cpuClock().client() - client0;
    long server = Throughput.cpuClock().server();
    // The window's statistics, all of them: every backend of the contender reports before the
    // reading (and so before the next contender's window starts).
    PeersContenders.report(contender.pool());
    ServerStats delta =
        stats.isPresent() ? ServerStats.read(stats.get(), statements).minus(before) : null;
    long cycles = Arrays.stream(ok).sum();
    long refusals = Arrays.stream(refused).sum();
    long attemptsMade = Math.max(1, cycles + refusals);
    return new Window(
        cycles * 1e9 / window.toNanos(),
        cycles,
        refusals,
        client / 1e3 / attemptsMade,
        server0 < 0 ? Double.NaN : (server - server0) / 1e3 / attemptsMade,
        delta,
        Arrays.stream(refusedNanos).flatMapToLong(Arrays::stream).toArray());
  }

  private static double medianRate(List<Window> ws) {
    return Throughput.median(ws.stream().mapToDouble(Window::cyclesPerSecond).toArray());
  }

  private static double minRate(List<Window> ws) {
    return ws.stream().mapToDouble(Window::cyclesPerSecond).min().orElse(0);
  }

  private static double maxRate(List<Window> ws) {
    return ws.stream().mapToDouble(Window::cyclesPerSecond).max().orElse(0);
  }

  private static String spreadOf(List<Window> ws) {
    return fmt(minRate(ws)) + ", **" + fmt(medianRate(ws)) + "**, " + fmt(maxRate(ws));
  }

  private static double medianOf(List<Window> ws, java.util.function.ToDoubleFunction<Window> f) {
    return Throughput.median(ws.stream().mapToDouble(f).toArray());
  }

  /** The per-attempt table's server counters, in the order of its columns. */
  private static final List<ToLongFunction<ServerStats>> PER_ATTEMPT =
      List.of(
          ServerStats::walRecords,
          ServerStats::walSyncs,
          ServerStats::walWrites,
          ServerStats::walFpi,
          ServerStats::walBytes,
          ServerStats::statements,
          ServerStats::commits,
          ServerStats::walWriterWakeups);

  private static String perCycleRow(String load, int threads, String name, List<Window> ws) {
    StringJoiner row = new StringJoiner(" | ", "| ", " |");
    row.add(load).add(String.valueOf(threads)).add(name);
    for (ToLongFunction<ServerStats> counter : PER_ATTEMPT) {
      row.add(count(medianOf(ws, w -> w.per(counter.applyAsLong(w.stats())))));
    }
    return row.add(
            micros(medianOf(ws, Window::clientMicros))
                + " / "
                + micros(medianOf(ws, Window::serverMicros)))
        .toString();
  }

  private static String windowsRow(String load, int threads, String name, List<Window> ws) {
    StringBuilder row = new StringBuilder("| " + load + " | " + threads + " | " + name + " |");
    for (Window w : ws) {
      row.append(' ')
          .append(fmt(w.cyclesPerSecond()))
          .append(" (")
          .append(fmt(w.per(w.stats().walSyncs())))
          .append(", ")
          .append(micros(w.clientMicros()))
          .append(" / ")
          .append(micros(w.serverMicros()))
          .append(" us")
          .append(w.stats().checkpoints() > 0 ? ", checkpoint" : "")
          .append(')');
    }
    return row.append(" |").toString();
  }

  /** The median refused attempt over every window, in microseconds (NaN if none was refused). */
  private static double refusalP50(List<Window> ws) {
    long[] all = ws.stream().flatMapToLong(w -> Arrays.stream(w.refusalNanos())).sorted().toArray();
    return all.length == 0 ? Double.NaN : all[all.length / 2] / 1e3;
  }

  /** A count per attempt, or "n/a" where the server does not tell it. */
  private static String count(double perAttempt) {
    return Double.isNaN(perAttempt) ? "n/a" : fmt(perAttempt);
  }

  /** A p50, or "none" when no attempt was refused (one thread alone is never refused). */
  private static String p50(double micros) {
    return Double.isNaN(micros) ? "none" : fmt(micros);
  }
}
