package io.leasehold.reliability;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.leasehold.fencing.LeaseKey;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** The workers of one process: a pool, a lease client, the resources, and the worker threads. */
final class WorkerProcess {
  private WorkerProcess() {}

  static List<LeaseKey> keys(int n) {
    List<LeaseKey> keys = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      keys.add(LeaseKey.of("torture", "session-" + i));
    }
    return keys;
  }

  static HikariDataSource pool(String jdbcUrl, String process, int size) {
    HikariConfig c = new HikariConfig();
    c.setJdbcUrl(jdbcUrl);
    // The embedded server's superuser, unless the environment names another (external servers).
    c.setUsername(System.getenv().getOrDefault("LEASEHOLD_TEST_JDBC_USER", "postgres"));
    c.setPassword(System.getenv().getOrDefault("LEASEHOLD_TEST_JDBC_PASSWORD", "postgres"));
    c.setMaximumPoolSize(size);
    c.setMinimumIdle(0);
    c.setConnectionTimeout(2_000);
    c.setPoolName("torture-" + process);
    // The fault injector finds this process's connections by name.
    c.addDataSourceProperty("ApplicationName", "torture-" + process);
    c.setInitializationFailTimeout(-1);
    return new HikariDataSource(c);
  }

  /** Runs {@code workers} workers until {@code duration} has passed; blocks until they end. */
  static void run(
      String jdbcUrl,
      Path dir,
      String process,
      int workers,
      long seed,
      Duration ttl,
      Duration duration,
      int keyCount,
      boolean broken,
      Path historyFile)
      throws InterruptedException {
    List<String> names = new ArrayList<>();
    for (int i = 0; i < workers; i++) {
      names.add("w" + i);
    }
    PauseSchedule pauses =
        new PauseSchedule(seed, names, duration.toMillis(), Math.max(ttl.toMillis() * 4, 3000));
    long stopAt = System.nanoTime() + duration.toNanos();
    try (HikariDataSource ds = pool(jdbcUrl, process, workers * 2 + 2);
        LeaseClient client = broken ? new BrokenClient(ds, ttl) : new RealClient(ds, ttl);
        History history = new History(historyFile)) {
      TortureResources resources = new TortureResources(dir, ds);
      List<Thread> threads = new ArrayList<>();
      List<Worker> running = new ArrayList<>();
      Worker.Shift shift =
          new Worker.Shift(process, client, resources, history, ttl, stopAt, pauses);
      for (int i = 0; i < workers; i++) {
        Worker w = new Worker(shift, names.get(i), keys(keyCount), seed * 31 + i);
        running.add(w);
        Thread t = new Thread(w, "torture-" + process + "-" + names.get(i));
        t.start();
        threads.add(t);
      }
      for (Thread t : threads) {
        t.join();
      }
      for (Worker w : running) {
        w.recordReleaseOnClose();
      }
    }
  }
}
