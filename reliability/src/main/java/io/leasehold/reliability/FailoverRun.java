package io.leasehold.reliability;

import io.leasehold.reliability.ha.PatroniCluster;
import java.io.PrintStream;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The torture run against a Patroni cluster ({@link PatroniCluster}) while it fails over: the
 * workers acquire, renew, release and write through the guards over pgjdbc's multi-host URL, and
 * every {@code every} the injector kills the leader (SIGKILL of postgres and its Patroni) or, every
 * fourth time, asks for a planned switchover; a killed node is started again once writes work, and
 * rejoins as a replica. The checker then verifies C1, C3 and C9/C10 over the whole history.
 *
 * <p>Per database fault it measures the unavailability (from the fault to the first acknowledged
 * write through the multi-host URL) and how far the fence sequence moved across it.
 */
final class FailoverRun implements DatabaseFaults {
  /**
   * What a failover run found.
   *
   * @param torture the torture run's report (operations, violations)
   * @param failovers leaders killed
   * @param switchovers planned switchovers
   * @param unavailableMillis per fault, from the fault to the first acknowledged write
   * @param sequenceJumps per fault, the fence sequence's last value after minus before
   * @param acknowledgedWrites inserts the probe writer saw acknowledged
   * @param lostWrites of those, how many the final primary does not have
   */
  record Report(
      TortureRun.Report torture,
      int failovers,
      int switchovers,
      List<Long> unavailableMillis,
      List<Long> sequenceJumps,
      int acknowledgedWrites,
      int lostWrites) {
    long p50() {
      return percentile(0.5);
    }

    long max() {
      return percentile(1.0);
    }

    private long percentile(double p) {
      if (unavailableMillis.isEmpty()) {
        return 0;
      }
      List<Long> sorted = unavailableMillis.stream().sorted().toList();
      return sorted.get((int) Math.min(sorted.size() - 1, Math.ceil(p * sorted.size()) - 1));
    }
  }

  /**
   * One fault injected so far.
   *
   * @param switchover a planned switchover, or else a killed leader
   * @param unavailableMillis from the fault to the first acknowledged write
   * @param sequenceJump the fence sequence's last value after minus before
   */
  private record Fault(boolean switchover, long unavailableMillis, long sequenceJump) {}

  private final PatroniCluster cluster;
  private final Duration every;
  private final PrintStream out;
  private final List<Fault> faults = new ArrayList<>();

  private FailoverRun(PatroniCluster cluster, Duration every, PrintStream out) {
    this.cluster = cluster;
    this.every = every;
    this.out = out;
  }

  /**
   * Starts a cluster, runs the torture workload through {@code faults} database faults, and tears
   * the cluster down.
   *
   * @param synchronous synchronous replication, or asynchronous (the negative control)
   * @param faults how many database faults
   * @param every the interval between them
   * @param torture the workload's settings; its duration and URL are replaced
   * @param out where the report goes
   * @return the report
   */
  static Report run(
      boolean synchronous, int faults, Duration every, TortureConfig torture, PrintStream out) {
    try (PatroniCluster cluster = PatroniCluster.start(synchronous, out)) {
      return run(cluster, faults, every, torture, out);
    }
  }

  /**
   * The same on a running cluster, which stays up.
   *
   * @param cluster the cluster
   * @param faults how many database faults
   * @param every the interval between them
   * @param torture the workload's settings; its duration and URL are replaced
   * @param out where the report goes
   * @return the report
   */
  static Report run(
      PatroniCluster cluster, int faults, Duration every, TortureConfig torture, PrintStream out) {
    FailoverRun run = new FailoverRun(cluster, every, out);
    out.println("failover safety as the store sees it: " + safety(cluster));
    // Workers run through the last fault and its recovery (one more interval).
    Duration duration = every.multipliedBy(faults + 1L);
    TortureConfig config =
        new TortureConfig(
            torture.seed(),
            duration,
            torture.threads(),
            torture.processes(),
            torture.workersPerProcess(),
            torture.keys(),
            torture.ttl(),
            torture.faults(),
            torture.broken(),
            Optional.of(cluster.jdbcUrl()));
    out.println(
        "failover run: "
            + (cluster.synchronous() ? "synchronous" : "asynchronous")
            + " replication, "
            + faults
            + " database faults every "
            + every.toSeconds()
            + " s");
    AckProbe probe = new AckProbe(cluster.jdbcUrl());
    Thread writer = new Thread(probe, "failover-ack-probe");
    writer.start();
    TortureRun.Report report;
    try {
      report = TortureRun.run(config, out, run);
    } finally {
      probe.stop = true;
      try {
        writer.join(60_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    int lost = probe.lost();
    int switchovers = (int) run.faults.stream().filter(Fault::switchover).count();
    Report r =
        new Report(
            report,
            run.faults.size() - switchovers,
            switchovers,
            run.faults.stream().map(Fault::unavailableMillis).toList(),
            run.faults.stream().map(Fault::sequenceJump).toList(),
            probe.acknowledged.size(),
            lost);
    out.println(
        "failovers: "
            + r.failovers()
            + ", switchovers: "
            + r.switchovers()
            + ", unavailable p50 "
            + r.p50()
            + " ms, max "
            + r.max()
            + " ms; fence sequence moved by "
            + r.sequenceJumps()
            + "; probe writes acknowledged "
            + r.acknowledgedWrites()
            + ", lost "
            + lost
            + "; violations: "
            + report.violations().size());
    return r;
  }

  /** What {@link io.leasehold.lease.LeaseAdmin#failoverSafety} says about the cluster's primary. */
  static io.leasehold.lease.FailoverSafety safety(PatroniCluster cluster) {
    try (com.zaxxer.hikari.HikariDataSource ds =
            WorkerProcess.pool(cluster.jdbcUrl(), "safety", 1);
        io.leasehold.lease.LeaseStore store =
            io.leasehold.lease.LeaseStore.builder(ds)
                .accessPolicy(io.leasehold.lease.AccessPolicy.allowAll())
                .build()) {
      return store.admin().failoverSafety();
    }
  }

  @Override
  public Duration every() {
    return every;
  }

  @Override
  public String inject(int n) {
    // Each fault starts from a whole cluster: three nodes, replicating.
    cluster.awaitHealthy(Duration.ofSeconds(120));
    long before = lastFence();
    long t0 = System.nanoTime();
    boolean switchover = n % 4 == 0;
    String what;
    long writable;
    if (switchover) {
      what = "switchover " + cluster.switchover();
      writable = awaitWrite();
    } else {
      String killed = cluster.killLeader();
      what = "failover: killed " + killed;
      writable = awaitWrite();
      cluster.restart(killed); // it rejoins as a replica, through pg_rewind if it diverged
    }
    long ms = (writable - t0) / 1_000_000;
    long after = lastFence();
    faults.add(new Fault(switchover, ms, after - before));
    String detail =
        what
            + ", writes back after "
            + ms
            + " ms, now led by "
            + cluster.leader().orElse("?")
            + ", fence sequence "
            + before
            + " -> "
            + after;
    out.println("ha: " + detail);
    return detail.replace(':', ' ');
  }

  /**
   * Inserts rows as fast as one connection can, through the multi-host URL, and records every id
   * whose insert was acknowledged. A lease is a committed row like these: an acknowledged insert
   * that the final primary lacks is what a failover to a standby that missed it looks like.
   */
  private static final class AckProbe implements Runnable {
    private final String url;
    final List<Long> acknowledged = java.util.Collections.synchronizedList(new ArrayList<>());
    volatile boolean stop;

    AckProbe(String url) {
      this.url = url;
    }

    @Override
    public void run() {
      long next = 1;
      while (!stop) {
        try (Connection c =
            DriverManager.getConnection(url, PatroniCluster.USER, PatroniCluster.PASSWORD)) {
          try (Statement s = c.createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS ha_acks (id bigint PRIMARY KEY)");
          }
          try (java.sql.PreparedStatement ps =
              c.prepareStatement("INSERT INTO ha_acks VALUES (?)")) {
            while (!stop) {
              ps.setLong(1, next);
              ps.executeUpdate();
              acknowledged.add(next);
              next++;
            }
          }
        } catch (SQLException e) {
          next++; // that insert's outcome is unknown: never counted
          try {
            Thread.sleep(50);
          } catch (InterruptedException ie) {
            Thread.currentThread().interrupt();
            return;
          }
        }
      }
    }

    /** How many acknowledged ids the primary lacks now. */
    int lost() {
      java.util.Set<Long> present = new java.util.HashSet<>();
      try (Connection c =
              DriverManager.getConnection(url, PatroniCluster.USER, PatroniCluster.PASSWORD);
          Statement s = c.createStatement();
          ResultSet rs = s.executeQuery("SELECT id FROM ha_acks")) {
        while (rs.next()) {
          present.add(rs.getLong(1));
        }
      } catch (SQLException e) {
        throw new IllegalStateException("could not read the probe's rows back", e);
      }
      synchronized (acknowledged) {
        return (int) acknowledged.stream().filter(id -> !present.contains(id)).count();
      }
    }
  }

  /** Retries a write through the multi-host URL until one is acknowledged; returns its nanoTime. */
  private long awaitWrite() {
    long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
    SQLException last = null;
    while (System.nanoTime() < deadline) {
      try (Connection c =
              DriverManager.getConnection(
                  cluster.jdbcUrl(), PatroniCluster.USER, PatroniCluster.PASSWORD);
          Statement s = c.createStatement()) {
        s.execute("CREATE TABLE IF NOT EXISTS ha_probe (at timestamptz)");
        s.execute("INSERT INTO ha_probe VALUES (clock_timestamp())");
        return System.nanoTime();
      } catch (SQLException e) {
        last = e;
        try {
          Thread.sleep(100);
        } catch (InterruptedException ie) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException("interrupted", ie);
        }
      }
    }
    throw new IllegalStateException("no write acknowledged for 120 s; last error: " + last);
  }

  /** The fence sequence's last value on the primary (0 before the schema exists). */
  private long lastFence() {
    try (Connection c =
            DriverManager.getConnection(
                cluster.jdbcUrl(), PatroniCluster.USER, PatroniCluster.PASSWORD);
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT last_value FROM leasehold_fence_seq")) {
      rs.next();
      return rs.getLong(1);
    } catch (SQLException e) {
      return -1;
    }
  }
}
