package io.leasehold.benchmarks;

import io.leasehold.adapters.jdbc.HighWaterSchema;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.StringJoiner;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * What every benchmark group shares: the database, the windows, the thread counts and the report it
 * writes to. One group a file; {@link BenchMain} runs the chosen ones in turn.
 */
abstract class BenchGroup {
  /** Runs one group's benchmarks, appending them to the report. */
  @FunctionalInterface
  interface Runner {
    void run(Context context) throws Exception;
  }

  /**
   * The run's settings and its report.
   *
   * @param db the database under test
   * @param window one measuring window
   * @param windows windows per cell (the median is reported)
   * @param threadCounts the thread counts of the scaling rows
   * @param keyCounts the counts of live leases of group {@code ceiling}
   * @param otherUrl a second database group {@code ceiling} measures side by side, if any
   * @param heldByInsert whether group {@code ceiling} makes its live leases by set-based inserts
   *     ({@code held=insert}) instead of one acquire each
   * @param md the Markdown report
   */
  record Context(
      BenchDatabase db,
      Duration window,
      int windows,
      List<Integer> threadCounts,
      List<Integer> keyCounts,
      java.util.Optional<String> otherUrl,
      boolean heldByInsert,
      StringBuilder md) {}

  /** The settings this group was made with, for the helpers it hands them to. */
  protected final Context context;

  protected final BenchDatabase db;
  protected final Duration window;
  protected final int windows;
  protected final List<Integer> threadCounts;
  private final StringBuilder md;

  BenchGroup(Context context) {
    this.context = context;
    this.db = context.db();
    this.window = context.window();
    this.windows = context.windows();
    this.threadCounts = context.threadCounts();
    this.md = context.md();
  }

  /** The body of a section that runs pgbench. */
  @FunctionalInterface
  interface PgBenchBody {
    void run(Path pgbench) throws Exception;
  }

  /**
   * A section that runs pgbench against the embedded server: its title, then the body with
   * pgbench's path; or, when pgbench is not installed or the server is external, a line saying the
   * section was skipped.
   *
   * @param title the section's title
   * @param body what the section measures
   */
  protected final void pgbenchSection(String title, PgBenchBody body) throws Exception {
    line("## " + title);
    line("");
    Optional<Path> pgbench = PgBench.find();
    if (pgbench.isEmpty() || db.port < 0) {
      line("pgbench not found (or an external database): skipped.");
      line("");
      return;
    }
    body.run(pgbench.get());
  }

  /** A pool of {@code size} connections on a database with the lease schema. */
  protected final com.zaxxer.hikari.HikariDataSource leasePool(int size) {
    com.zaxxer.hikari.HikariDataSource pool = db.pool(size);
    io.leasehold.lease.LeaseSchema.defaults().apply(pool);
    return pool;
  }

  /** Appends a line to the report and prints it. */
  protected final void line(String s) {
    md.append(s).append('\n');
    System.out.println(s);
  }

  static String fmt(double v) {
    if (v >= 100) {
      return String.format(Locale.ROOT, "%,.0f", v);
    }
    return String.format(Locale.ROOT, "%.2f", v);
  }

  static String ratio(double a, double b) {
    return b == 0 ? "-" : String.format(Locale.ROOT, "%.2fx", a / b);
  }

  /** A row of a Markdown table: the cells, each as its {@code toString}, between bars. */
  static String row(Object... cells) {
    StringJoiner row = new StringJoiner(" | ", "| ", " |");
    for (Object cell : cells) {
      row.add(String.valueOf(cell));
    }
    return row.toString();
  }

  /**
   * Creates the high-water table and {@code bench_rows}, the table {@link #insertRow} writes to, in
   * {@code pool}'s database.
   */
  static void createBenchRows(DataSource pool) throws java.sql.SQLException {
    HighWaterSchema.defaults().apply(pool);
    execute(
        pool,
        "CREATE TABLE IF NOT EXISTS bench_rows (id bigserial PRIMARY KEY, fence bigint, body text)");
  }

  /** Runs set-up statements in order, on one connection of {@code pool}, each committed alone. */
  static void execute(DataSource pool, String... statements) throws java.sql.SQLException {
    try (Connection c = pool.getConnection();
        Statement s = c.createStatement()) {
      for (String statement : statements) {
        s.execute(statement);
      }
    }
  }

  static int insertRow(Connection c, long fence) throws java.sql.SQLException {
    try (PreparedStatement ps =
        c.prepareStatement("INSERT INTO bench_rows (fence, body) VALUES (?, 'x')")) {
      ps.setLong(1, fence);
      return ps.executeUpdate();
    }
  }

  /** The same atomic write the file store makes, without the lock, the mark and the attribute. */
  static void atomicWrite(Path dir, byte[] content) throws IOException {
    Path temp = dir.resolve("tmp-" + UUID.randomUUID());
    try (FileChannel ch =
        FileChannel.open(temp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
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

  /**
   * The report's table of CPU time per attempt, client / server, a row per thread count.
   *
   * @param head the table's head row
   * @param sep its separator row
   * @param rows per thread count, each competitor's cost
   */
  protected final void cpuTable(
      CharSequence head,
      CharSequence sep,
      List<? extends List<? extends Throughput.CpuCost>> rows) {
    line(head.toString());
    line(sep.toString());
    for (int t = 0; t < threadCounts.size(); t++) {
      StringBuilder row = new StringBuilder("| " + threadCounts.get(t) + " |");
      for (Throughput.CpuCost cost : rows.get(t)) {
        row.append(' ')
            .append(micros(cost.clientMicros()))
            .append(" / ")
            .append(micros(cost.serverMicros()))
            .append(" |");
      }
      line(row.toString());
    }
  }

  /** Microseconds, rounded, or "n/a". */
  static String micros(double us) {
    return Double.isNaN(us) ? "n/a" : String.format(java.util.Locale.ROOT, "%.0f", us);
  }
}
