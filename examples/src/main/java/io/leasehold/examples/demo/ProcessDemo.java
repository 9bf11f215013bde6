package io.leasehold.examples.demo;

import com.zaxxer.hikari.HikariDataSource;
import io.leasehold.adapters.file.FencedFileStore;
import io.leasehold.adapters.file.FileOperation;
import io.leasehold.fencing.TokenVerifier;
import io.leasehold.lease.LeaseSchema;
import io.leasehold.testkit.ChildJvm;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The two-process demo: two JVMs ("desktop" and "browser", see {@link DeviceMain}) contend for one
 * session; the one that wins is killed with SIGKILL while it holds the lease and is halfway through
 * its answer; the other takes over after the expiry and writes its own. Exits 0 only if the killed
 * run's partial work was never extended: no write of its fence was admitted after the takeover.
 *
 * <p>Run it with {@code mvn -q -pl examples -am -DskipTests -Pdemo verify
 * -Ddemo.main=io.leasehold.examples.demo.ProcessDemo}.
 */
public final class ProcessDemo {
  private static final Logger LIQUIBASE = Logger.getLogger("liquibase");
  private static final int PARTS = 6;

  private ProcessDemo() {}

  /** A line a device printed. */
  private record Line(String device, String text) {}

  /**
   * Runs the demo from the command line.
   *
   * @param args options, see {@code --help}
   */
  public static void main(String[] args) {
    java.util.Optional<DemoOptions> parsed =
        DemoOptions.fromCommandLine(
            args, "Two-process demo: a device killed with SIGKILL while holding the lease.");
    if (parsed.isEmpty()) {
      return;
    }
    DemoOptions options = parsed.get();
    System.exit(run(options, System.out) ? 0 : 1);
  }

  /**
   * Runs the demo.
   *
   * @param options the options
   * @param out where the timeline goes
   * @return true if the killed run's work was never extended after the takeover
   */
  public static boolean run(DemoOptions options, PrintStream out) {
    LIQUIBASE.setLevel(Level.WARNING);
    long start = System.nanoTime();
    out.println("Leasehold two-process demo (TTL " + options.ttl().toMillis() + " ms)");
    Path root = DemoResources.tempDir().resolve("files");
    try (DemoDatabase pg = DemoDatabase.start(options);
        HikariDataSource pool = pg.pool("setup", 1)) {
      LeaseSchema.defaults().apply(pool);
      FencedFileStore files =
          FencedFileStore.builder(root)
              .verifier(TokenVerifier.trustEveryWriter())
              .auditLog(true)
              .open();
      BlockingQueue<Line> lines = new LinkedBlockingQueue<>();
      List<Process> devices = new ArrayList<>();
      try {
        for (String device : List.of("desktop", "browser")) {
          devices.add(spawn(device, pg, root, options.ttl(), lines));
        }
        String winner = null;
        String loser = null;
        long loserFence = 0;
        long winnerFence = 0;
        int winnerParts = 0;
        long deadline =
            System.nanoTime()
                + Duration.ofSeconds(60).plus(options.ttl().multipliedBy(10)).toNanos();
        boolean loserDone = false;
        while (!loserDone) {
          Line line = lines.poll(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
          if (line == null) {
            throw new IllegalStateException("the devices stopped talking");
          }
          print(out, start, line.device(), line.text());
          if (line.text().startsWith("ACQUIRED") && winner == null) {
            winner = line.device();
            loser = winner.equals("desktop") ? "browser" : "desktop";
            winnerFence = Long.parseLong(line.text().split(" ")[2]);
          } else if (line.text().startsWith("ACQUIRED")) {
            loserFence = Long.parseLong(line.text().split(" ")[2]);
          } else if (line.device().equals(winner) && line.text().startsWith("WROTE")) {
            winnerParts++;
            if (winnerParts == 2) {
              Process p = devices.get(winner.equals("desktop") ? 0 : 1);
              p.destroyForcibly();
              p.waitFor(30, TimeUnit.SECONDS);
              print(
                  out,
                  start,
                  winner,
                  "KILLED with SIGKILL while holding the lease, after part 2 of " + PARTS);
            }
          } else if (line.device().equals(loser) && line.text().startsWith("RELEASED")) {
            loserDone = true;
          }
        }
        return verdict(out, files, winner, winnerFence, loserFence);
      } finally {
        for (Process p : devices) {
          p.destroyForcibly();
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  private static boolean verdict(
      PrintStream out, FencedFileStore files, String winner, long winnerFence, long loserFence) {
    List<FileOperation> log = files.auditLog();
    boolean takenOver = false;
    int extended = 0;
    out.println();
    out.println("== The file store's audit log (admission order across both processes)");
    for (FileOperation op : log) {
      long fence = op.admission().token().fence();
      takenOver |= fence == loserFence;
      boolean late = takenOver && fence == winnerFence;
      extended += late ? 1 : 0;
      out.println(
          String.format(
              Locale.ROOT,
              "  %-6s %-16s fence %d%s",
              op.kind(),
              op.path(),
              fence,
              late ? "   <- the killed run, after the takeover!" : ""));
    }
    boolean passed = loserFence > winnerFence && extended == 0 && takenOver;
    out.println();
    out.println(
        passed
            ? "VERDICT: PASS. The killed "
                + winner
                + " (fence "
                + winnerFence
                + ") never wrote again; the other device"
                + " took over with fence "
                + loserFence
                + " after the expiry."
            : "VERDICT: FAIL (" + extended + " writes of the killed run after the takeover)");
    return passed;
  }

  private static void print(PrintStream out, long start, String device, String text) {
    out.println(
        String.format(
            Locale.ROOT,
            "%9s  %-8s %s",
            Timeline.seconds(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)),
            device,
            text));
  }

  private static Process spawn(
      String device, DemoDatabase pg, Path root, Duration ttl, BlockingQueue<Line> lines) {
    try {
      ChildJvm child =
          ChildJvm.start(
              DeviceMain.class,
              pg.jdbcUrl(),
              pg.user(),
              pg.password(),
              device,
              root.toString(),
              Long.toString(ttl.toMillis()),
              Integer.toString(PARTS));
      child.forwardLines("demo-" + device, l -> lines.add(new Line(device, l)));
      return child.process();
    } catch (IOException e) {
      throw new UncheckedIOException("could not start " + device, e);
    }
  }
}
