package io.leasehold.benchmarks;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.UUID;

/**
 * What every benchmark group shares: the database, the windows, the thread counts and the
 * report it writes to. One group a file; {@link BenchMain} runs the chosen ones in turn.
 */
abstract class BenchGroup {
  /**
   * The run's settings and its report.
   *
   * @param db the database under test
   * @param window one measuring window
   * @param windows windows per cell (the median is reported)
   * @param threadCounts the thread counts of the scaling rows
   * @param md the Markdown report
   */
  record Context(BenchDatabase db, Duration window, int windows, List<Integer> threadCounts, StringBuilder md) {}

  protected final BenchDatabase db;
  protected final Duration window;
  protected final int windows;
  protected final List<Integer> threadCounts;
  private final StringBuilder md;

  BenchGroup(Context context) {
    this.db = context.db();
    this.window = context.window();
    this.windows = context.windows();
    this.threadCounts = context.threadCounts();
    this.md = context.md();
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

  static int insertRow(Connection c, long fence) throws java.sql.SQLException {
    try (PreparedStatement ps = c.prepareStatement("INSERT INTO bench_rows (fence, body) VALUES (?, 'x')")) {
      ps.setLong(1, fence);
      return ps.executeUpdate();
    }
  }

  /** The same atomic write the file store makes, without the lock, the mark and the attribute. */
  static void atomicWrite(Path dir, byte[] content) throws IOException {
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

  /** Microseconds, rounded, or "n/a". */
  static String micros(double us) {
    return Double.isNaN(us) ? "n/a" : String.format(java.util.Locale.ROOT, "%.0f", us);
  }
}
