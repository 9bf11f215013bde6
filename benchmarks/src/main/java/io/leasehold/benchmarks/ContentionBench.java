package io.leasehold.benchmarks;

import com.zaxxer.hikari.HikariDataSource;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.lease.AcquireRequest;
import io.leasehold.lease.AcquireResult;
import io.leasehold.lease.Lease;
import io.leasehold.lease.LeaseStore;
import io.leasehold.lease.LeaseWatcher;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.provider.jdbctemplate.JdbcTemplateLockProvider;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * What contention costs: the latency of a refused attempt, and how long waiters wait for a key that
 * they take in turns.
 */
final class ContentionBench {
  /** Leasehold's acquire statement before issue 17 (git 30d2285), on the default table. */
  static final String FORMER_ACQUIRE =
      "INSERT INTO leasehold_lease AS l (account_id, session_id, run_id, fence, holder,"
          + " acquired_at, renewed_at, expires_at, released_at, took_over) "
          + "VALUES (?, ?, ?, nextval('leasehold_fence_seq'), ?, statement_timestamp(), statement_timestamp(),"
          + " statement_timestamp() + ? * interval '1 microsecond', NULL, false) "
          + "ON CONFLICT (account_id, session_id) DO UPDATE SET"
          + " run_id = EXCLUDED.run_id, fence = nextval('leasehold_fence_seq'), holder = EXCLUDED.holder,"
          + " acquired_at = GREATEST(EXCLUDED.acquired_at, l.released_at),"
          + " renewed_at = GREATEST(EXCLUDED.acquired_at, l.released_at),"
          + " expires_at = GREATEST(EXCLUDED.acquired_at, l.released_at)"
          + " + (EXCLUDED.expires_at - EXCLUDED.acquired_at), released_at = NULL,"
          + " took_over = l.released_at IS NULL "
          + "WHERE l.released_at IS NOT NULL"
          + " OR l.expires_at + ? * interval '1 microsecond' <= EXCLUDED.acquired_at "
          + "RETURNING l.fence";

  private final BenchGroup.Context run;

  ContentionBench(BenchGroup.Context run) {
    this.run = run;
  }

  /** One thread's refused attempt; returns normally only if it was refused. */
  @FunctionalInterface
  interface Refusal {
    void attempt() throws Exception;
  }

  @FunctionalInterface
  interface RefusalFactory {
    Refusal create(int thread) throws Exception;
  }

  /**
   * Latency percentiles of one competitor, in microseconds, and the CPU time per attempt of the
   * client and of the server (NaN if unknown), in microseconds.
   */
  record Latency(double p50, double p99, long samples, double clientMicros, double serverMicros)
      implements Throughput.CpuCost {}

  /**
   * Refused attempts on a key someone holds, from {@code threads} threads at once, window by window
   * in turn: Leasehold's {@code tryAcquire} on a dedicated pool, its acquire statement from bare
   * JDBC, ShedLock's JdbcTemplate provider, the failed {@code UPDATE} that ShedLock's plain
   * provider sends (through a pool, with the client's clock), Leasehold's former acquire and status
   * read, and {@code tryAcquire} of a store on a shared pool (each statement with its opening).
   */
  List<Latency> refusals(int threads) throws Exception {
    HikariDataSource pool = run.db().pool(threads + 2);
    LeaseStore store =
        BenchDatabase.storeBuilder(pool, Duration.ofMinutes(30)).dedicatedPool(true).build();
    HikariDataSource sharedPool = run.db().pool(threads + 2);
    LeaseStore sharedStore = BenchDatabase.storeBuilder(sharedPool, Duration.ofMinutes(30)).build();
    LeaseKey key = LeaseKey.of("bench", "refused");
    Lease holder = ((AcquireResult.Acquired) store.tryAcquire(key, "bench")).lease();
    HikariDataSource shedPool = run.db().pool(threads + 2);
    JdbcTemplateLockProvider shedLock =
        new JdbcTemplateLockProvider(
            JdbcTemplateLockProvider.Configuration.builder()
                .withJdbcTemplate(new JdbcTemplate(shedPool))
                .usingDbTime()
                .build());
    Optional<SimpleLock> shedHeld =
        shedLock.lock(
            new LockConfiguration(Instant.now(), "refused", Duration.ofMinutes(30), Duration.ZERO));
    if (shedHeld.isEmpty()) {
      throw new IllegalStateException("could not take the ShedLock lock to refuse others");
    }
    LeaseStatements sql =
        LeaseStatements.of(Duration.ofSeconds(1), Duration.ofSeconds(5), false, true);
    List<RefusalFactory> competitors =
        List.of(
            t ->
                () -> {
                  if (!(store.tryAcquire(key, "bench") instanceof AcquireResult.Busy)) {
                    throw new IllegalStateException("not refused");
                  }
                },
            t -> {
              Connection c = run.db().connection();
              try (Statement st = c.createStatement()) {
                st.execute(sql.sessionTimeouts());
              }
              PreparedStatement acquire = c.prepareStatement(sql.acquire());
              return () -> {
                LeaseStatements.bindAcquire(
                    acquire, "bench", "refused", UUID.randomUUID(), "bench", 30_000_000, 0);
                if (Competitors.grantedFence(acquire) != null) {
                  throw new IllegalStateException("not refused");
                }
              };
            },
            t ->
                () -> {
                  if (shedLock
                      .lock(
                          new LockConfiguration(
                              Instant.now(), "refused", Duration.ofSeconds(30), Duration.ZERO))
                      .isPresent()) {
                    throw new IllegalStateException("not refused");
                  }
                },
            t ->
                () -> {
                  java.sql.Timestamp now = java.sql.Timestamp.from(Instant.now());
                  try (Connection c = shedPool.getConnection();
                      PreparedStatement update =
                          c.prepareStatement(
                              "UPDATE shedlock SET lock_until = ?, locked_at = ?, locked_by = ? WHERE name = ? AND lock_until <= ?")) {
                    update.setTimestamp(
                        1, java.sql.Timestamp.from(now.toInstant().plusSeconds(30)));
                    update.setTimestamp(2, now);
                    update.setString(3, "bench");
                    update.setString(4, "refused");
                    update.setTimestamp(5, now);
                    if (update.executeUpdate() != 0) {
                      throw new IllegalStateException("not refused");
                    }
                  }
                },
            t -> {
              // The acquire before issue 17, for the before/after figure: a conditional UPSERT
              // (which locks the row and waits for a WAL flush even when it refuses, and draws a
              // fence) followed by a status read for the Busy answer, each with the opening.
              String opening =
                  "SELECT statement_timestamp(), set_config('lock_timeout', '1000', true),"
                      + " set_config('statement_timeout', '5000', true); ";
              Connection c = run.db().connection();
              PreparedStatement upsert = c.prepareStatement(opening + FORMER_ACQUIRE);
              PreparedStatement status =
                  c.prepareStatement(
                      opening
                          + "SELECT statement_timestamp(), l.run_id, l.fence, l.holder, l.acquired_at,"
                          + " l.expires_at, l.released_at FROM (SELECT) AS now LEFT JOIN leasehold_lease AS l"
                          + " ON l.account_id = ? AND l.session_id = ?");
              return () -> {
                upsert.setString(1, "bench");
                upsert.setString(2, "refused");
                upsert.setObject(3, UUID.randomUUID());
                upsert.setString(4, "bench");
                upsert.setLong(5, 30_000_000);
                upsert.setLong(6, 0);
                if (Competitors.firstLong(upsert) != null) {
                  throw new IllegalStateException("not refused");
                }
                status.setString(1, "bench");
                status.setString(2, "refused");
                Competitors.firstLong(status);
              };
            },
            t ->
                () -> {
                  if (!(sharedStore.tryAcquire(key, "bench") instanceof AcquireResult.Busy)) {
                    throw new IllegalStateException("not refused");
                  }
                });
    try {
      List<List<Refusal>> ops = new ArrayList<>();
      for (RefusalFactory f : competitors) {
        List<Refusal> perThread = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
          perThread.add(f.create(t));
        }
        ops.add(perThread);
      }
      List<List<long[]>> samples = new ArrayList<>();
      double[][] client = new double[ops.size()][run.windows()];
      double[][] server = new double[ops.size()][run.windows()];
      for (List<Refusal> op : ops) {
        timed(op); // warm-up
        samples.add(new ArrayList<>());
      }
      Throughput.CpuClock cpu = Throughput.cpuClock();
      for (int w = 0; w < run.windows(); w++) {
        for (int c = 0; c < ops.size(); c++) {
          long client0 = cpu.client();
          long server0 = cpu.server();
          long[] lat = timed(ops.get(c));
          samples.get(c).add(lat);
          client[c][w] = (cpu.client() - client0) / 1e3 / Math.max(1, lat.length);
          server[c][w] =
              server0 < 0 ? Double.NaN : (cpu.server() - server0) / 1e3 / Math.max(1, lat.length);
        }
      }
      List<Latency> result = new ArrayList<>();
      for (int c = 0; c < samples.size(); c++) {
        long[] all = samples.get(c).stream().flatMapToLong(Arrays::stream).sorted().toArray();
        result.add(
            new Latency(
                all[all.length / 2] / 1e3,
                all[(int) (all.length * 0.99)] / 1e3,
                all.length,
                Throughput.median(client[c]),
                Throughput.median(server[c])));
      }
      return result;
    } finally {
      shedHeld.get().unlock();
      holder.release();
      store.close();
      sharedStore.close();
      run.db().closeOpened();
    }
  }

  /** Runs the threads for one window; returns every attempt's latency in nanoseconds. */
  private long[] timed(List<Refusal> perThread) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(perThread.size());
    try {
      CountDownLatch start = new CountDownLatch(1);
      AtomicBoolean stop = new AtomicBoolean();
      List<Future<long[]>> futures = new ArrayList<>();
      for (Refusal r : perThread) {
        futures.add(
            pool.submit(
                () -> {
                  long[] lat = new long[1 << 16];
                  int n = 0;
                  start.await();
                  while (!stop.get()) {
                    long t = System.nanoTime();
                    r.attempt();
                    long d = System.nanoTime() - t;
                    if (n == lat.length) {
                      lat = Arrays.copyOf(lat, n * 2);
                    }
                    lat[n++] = d;
                  }
                  return Arrays.copyOf(lat, n);
                }));
      }
      start.countDown();
      Thread.sleep(run.window().toMillis());
      stop.set(true);
      List<long[]> parts = new ArrayList<>();
      for (Future<long[]> f : futures) {
        parts.add(f.get());
      }
      return parts.stream().flatMapToLong(Arrays::stream).toArray();
    } finally {
      pool.shutdownNow();
    }
  }

  /** How waiters fared: waits in milliseconds, and how many tries the database saw per grant. */
  record Waits(double p50, double p90, double max, double totalMillis, int grants) {}

  /**
   * {@code waiters} callers each wait for one key with {@code acquire(request, 60 s)}, hold it for
   * {@code hold} and release it, all at once; repeated {@code rounds} times.
   *
   * @param mode {@code "one store"} (every waiter in one store: a release wakes the others in the
   *     process), {@code "store per waiter, polling"} (like separate processes that publish
   *     nothing), {@code "store per waiter, watcher"} (each process publishes and runs a watcher)
   */
  Waits waits(String mode, int waiters, Duration hold, int rounds) throws Exception {
    boolean perWaiter = !mode.equals("one store");
    boolean watch = mode.endsWith("watcher");
    List<LeaseStore> stores = new ArrayList<>();
    List<LeaseWatcher> watchers = new ArrayList<>();
    HikariDataSource shared = run.db().pool(waiters + 2);
    for (int i = 0; i < (perWaiter ? waiters : 1); i++) {
      HikariDataSource pool = perWaiter ? run.db().pool(2) : shared;
      LeaseStore s =
          BenchDatabase.storeBuilder(pool, Duration.ofSeconds(30)).notifyChanges(watch).build();
      stores.add(s);
      if (watch) {
        watchers.add(LeaseWatcher.start(s, run.db().pool(1)));
      }
    }
    List<Double> waits = new ArrayList<>();
    long total = 0;
    ExecutorService pool = Executors.newFixedThreadPool(waiters);
    try {
      for (int round = 0; round < rounds; round++) {
        LeaseKey key = LeaseKey.of("bench-wait", mode.replace(' ', '-') + "-" + round);
        CountDownLatch start = new CountDownLatch(1);
        AtomicInteger holding = new AtomicInteger();
        List<Future<Double>> futures = new ArrayList<>();
        for (int w = 0; w < waiters; w++) {
          LeaseStore store = stores.get(perWaiter ? w : 0);
          futures.add(
              pool.submit(
                  () -> {
                    start.await();
                    long t = System.nanoTime();
                    AcquireResult r =
                        store.acquire(AcquireRequest.of(key, "bench-wait"), Duration.ofSeconds(60));
                    double waited = (System.nanoTime() - t) / 1e6;
                    if (!(r instanceof AcquireResult.Acquired a)) {
                      throw new IllegalStateException("a waiter was not served within 60 s: " + r);
                    }
                    if (holding.incrementAndGet() != 1) {
                      throw new IllegalStateException("two holders at once");
                    }
                    Thread.sleep(hold.toMillis()); // the work under the lease
                    holding.decrementAndGet();
                    a.lease().release();
                    return waited;
                  }));
        }
        long t0 = System.nanoTime();
        start.countDown();
        for (Future<Double> f : futures) {
          waits.add(f.get(5, TimeUnit.MINUTES));
        }
        total += System.nanoTime() - t0;
      }
    } finally {
      pool.shutdownNow();
      // A watcher's close waits for its thread's poll to end (up to a quarter of a second, the
      // poll does not stop when interrupted): all of them at once, not one after the other.
      List<Thread> closing = new ArrayList<>();
      for (LeaseWatcher w : watchers) {
        Thread t = new Thread(w::close, "closing a lease watcher");
        t.start();
        closing.add(t);
      }
      for (Thread t : closing) {
        t.join();
      }
      stores.forEach(LeaseStore::close);
      run.db().closeOpened();
    }
    double[] sorted = waits.stream().mapToDouble(Double::doubleValue).sorted().toArray();
    return new Waits(
        sorted[sorted.length / 2],
        sorted[(int) (sorted.length * 0.9)],
        sorted[sorted.length - 1],
        total / 1e6 / rounds,
        sorted.length);
  }
}
