package io.leasehold.benchmarks;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.stream.Stream;

/**
 * CPU time of the benchmark's JVM and of the embedded database server, from {@code /proc}: the
 * server's is the postmaster's and all its children's (backends, WAL writer, checkpointer), read
 * over a window, so that a competitor's cost per operation is measured on both sides of the socket.
 */
final class ServerCpu implements Throughput.CpuClock {
  /** Linux's clock ticks per second for {@code /proc/<pid>/stat} (USER_HZ). */
  private static final long TICKS_PER_SECOND = 100;

  private final long postmaster;

  private ServerCpu(long postmaster) {
    this.postmaster = postmaster;
  }

  /** The JVM's time only (an external server). */
  static Throughput.CpuClock none() {
    return new ServerCpu(-1);
  }

  /** Finds the server's postmaster through a backend's parent, or reads no server time. */
  static Throughput.CpuClock of(BenchDatabase db) {
    try (Connection c = db.connection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT pg_backend_pid()")) {
      rs.next();
      return new ServerCpu(parent(rs.getLong(1)));
    } catch (SQLException | IOException | RuntimeException e) {
      System.err.println("server CPU time not measured: " + e);
      return new ServerCpu(-1);
    }
  }

  @Override
  public long client() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }

  @Override
  public long server() {
    if (postmaster < 0) {
      return -1;
    }
    long ticks = 0;
    try (Stream<Path> procs = Files.list(Path.of("/proc"))) {
      for (Path p : (Iterable<Path>) procs::iterator) {
        String name = p.getFileName().toString();
        if (!name.chars().allMatch(Character::isDigit)) {
          continue;
        }
        String[] f = fields(p.resolve("stat"));
        if (f == null) {
          continue; // the process ended meanwhile
        }
        long pid = Long.parseLong(name);
        if (pid == postmaster || Long.parseLong(f[1]) == postmaster) {
          ticks += Long.parseLong(f[11]) + Long.parseLong(f[12]);
        }
      }
    } catch (IOException e) {
      return -1;
    }
    return ticks * 1_000_000_000L / TICKS_PER_SECOND;
  }

  private static long parent(long pid) throws IOException {
    String[] f = fields(Path.of("/proc/" + pid + "/stat"));
    if (f == null) {
      throw new IOException("no /proc entry for backend " + pid);
    }
    return Long.parseLong(f[1]);
  }

  /**
   * The fields of a {@code stat} line after the command name (which may hold spaces): index 0 is
   * the state, 1 the parent pid, 11 and 12 user and system time in ticks; null if it is gone.
   */
  private static String[] fields(Path stat) {
    try {
      String line = Files.readString(stat);
      return line.substring(line.lastIndexOf(')') + 2).trim().split(" ");
    } catch (IOException e) {
      return null;
    }
  }
}
