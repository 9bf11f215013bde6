package io.leasehold.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * The server's counters that do not depend on the machine's load, read before and after a window so
 * that a competitor's cost is known per cycle: WAL records, full-page images, writes and flushes
 * ({@code pg_stat_wal}), checkpoints and the buffers they wrote ({@code pg_stat_bgwriter}, or
 * {@code pg_stat_checkpointer} from PostgreSQL 17), statements ({@code pg_stat_statements}, when
 * installed), commits, and how often the WAL writer woke ({@code /proc}, when the server is local).
 * {@code pg_stat_wal} is flushed by each backend at most once a second, so a window's figures are
 * right to about a second's worth of its cycles.
 *
 * @param walRecords WAL records
 * @param walFpi full-page images
 * @param walBytes WAL bytes
 * @param walWrites WAL writes (to the kernel)
 * @param walSyncs WAL flushes (to the disk)
 * @param checkpoints checkpoints, timed and requested
 * @param buffersCheckpoint buffers the checkpointer wrote
 * @param statements statements executed, or -1 without {@code pg_stat_statements}
 * @param commits committed transactions of the database
 * @param walWriterWakeups voluntary context switches of the WAL writer, or -1 when unknown
 */
record ServerStats(
    long walRecords,
    long walFpi,
    long walBytes,
    long walWrites,
    long walSyncs,
    long checkpoints,
    long buffersCheckpoint,
    long statements,
    long commits,
    long walWriterWakeups) {

  /** Reads the counters now, on {@code c} (a connection kept open for the purpose). */
  static ServerStats read(Connection c, boolean statementsInstalled) throws SQLException {
    String statements =
        statementsInstalled
            ? "(SELECT coalesce(sum(calls), 0)::bigint FROM pg_stat_statements)"
            : "-1::bigint";
    try (Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT w.wal_records, w.wal_fpi, w.wal_bytes::bigint, w.wal_write, w.wal_sync, "
                    + checkpoints(c)
                    + ", "
                    + statements
                    + ", (SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()),"
                    + " (SELECT pid FROM pg_stat_activity WHERE backend_type = 'walwriter')"
                    + " FROM pg_stat_wal AS w")) {
      rs.next();
      return new ServerStats(
          rs.getLong(1),
          rs.getLong(2),
          rs.getLong(3),
          rs.getLong(4),
          rs.getLong(5),
          rs.getLong(6),
          rs.getLong(7),
          rs.getLong(8),
          rs.getLong(9),
          wakeups(rs.getLong(10)));
    }
  }

  /**
   * The checkpoints and the buffers they wrote: in {@code pg_stat_bgwriter} up to PostgreSQL 16, in
   * {@code pg_stat_checkpointer} from 17 (the embedded server's).
   */
  private static String checkpoints(Connection c) throws SQLException {
    return c.getMetaData().getDatabaseMajorVersion() >= 17
        ? "(SELECT num_timed + num_requested FROM pg_stat_checkpointer),"
            + " (SELECT buffers_written FROM pg_stat_checkpointer)"
        : "(SELECT checkpoints_timed + checkpoints_req FROM pg_stat_bgwriter),"
            + " (SELECT buffers_checkpoint FROM pg_stat_bgwriter)";
  }

  /** Whether {@code pg_stat_statements} can be read on {@code c}'s database. */
  static boolean statementsInstalled(Connection c) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT count(*) FROM pg_extension WHERE extname = 'pg_stat_statements'")) {
      rs.next();
      return rs.getLong(1) > 0;
    }
  }

  /** The WAL writer's voluntary context switches (each a wake-up), from /proc; -1 if unknown. */
  private static long wakeups(long pid) {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
        if (line.startsWith("voluntary_ctxt_switches:")) {
          return Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
        }
      }
    } catch (IOException | RuntimeException e) {
      return -1; // a remote server, or the process is not ours to read
    }
    return -1;
  }

  /** The counters from {@code before} to this reading. */
  ServerStats minus(ServerStats before) {
    return new ServerStats(
        walRecords - before.walRecords,
        walFpi - before.walFpi,
        walBytes - before.walBytes,
        walWrites - before.walWrites,
        walSyncs - before.walSyncs,
        checkpoints - before.checkpoints,
        buffersCheckpoint - before.buffersCheckpoint,
        statements < 0 ? -1 : statements - before.statements,
        commits - before.commits,
        walWriterWakeups < 0 || before.walWriterWakeups < 0
            ? -1
            : walWriterWakeups - before.walWriterWakeups);
  }
}
