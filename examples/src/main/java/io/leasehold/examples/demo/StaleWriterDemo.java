package io.leasehold.examples.demo;

import com.zaxxer.hikari.HikariDataSource;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.LeaseLostException;
import io.leasehold.fencing.StaleFenceException;
import io.leasehold.lease.AccessPolicy;
import io.leasehold.lease.AcquireResult;
import io.leasehold.lease.Lease;
import io.leasehold.lease.LeaseLoss;
import io.leasehold.lease.LeaseSchema;
import io.leasehold.lease.LeaseStatus;
import io.leasehold.lease.LeaseStore;
import io.leasehold.lease.ReleaseResult;
import io.leasehold.lease.RenewResult;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The stale-writer demo: one account opens one session on two devices; both press Run; the winner
 * works through a file store, a tool and a database table, then freezes past its TTL; the other
 * device takes over with a higher fence; the frozen run wakes up and every one of its late writes
 * is refused. Exits 0 only if no stale write was admitted and the final state belongs to the newer
 * run.
 *
 * <p>Run it with {@code mvn -q -pl examples -am -DskipTests -Pdemo verify}; options (see {@code
 * --help}) go in {@code -Ddemo.args="..."}.
 */
public final class StaleWriterDemo {
  // JUL loggers are held weakly by the LogManager: keep a reference so the level sticks.
  private static final Logger LIQUIBASE = Logger.getLogger("liquibase");

  private StaleWriterDemo() {}

  /**
   * What the demo found.
   *
   * @param passed true if every check held
   * @param problems what did not hold
   * @param staleAttempts late writes the frozen run attempted
   * @param staleRefused how many of them were refused
   * @param olderFence the frozen run's fence
   * @param newerFence the run that took over
   */
  public record Verdict(
      boolean passed,
      List<String> problems,
      int staleAttempts,
      int staleRefused,
      long olderFence,
      long newerFence) {}

  /** One attempted write, for the summary. */
  record Write(String adapter, String device, long fence, boolean admitted, String detail) {}

  /** One holder of the lease, for the summary. */
  record Tenure(
      String device, FencingToken token, long fromMillis, long untilMillis, String ending) {}

  /**
   * Runs the demo from the command line.
   *
   * @param args options, see {@code --help}
   */
  public static void main(String[] args) {
    java.util.Optional<DemoOptions> parsed =
        DemoOptions.fromCommandLine(
            args,
            "Stale-writer demo: two devices, one session, a frozen run refused by every resource.");
    if (parsed.isEmpty()) {
      return;
    }
    DemoOptions options = parsed.get();
    Verdict verdict = run(options, System.out);
    System.exit(verdict.passed() ? 0 : 1);
  }

  /**
   * Runs the demo.
   *
   * @param options the options
   * @param out where the timeline goes
   * @return the verdict
   */
  public static Verdict run(DemoOptions options, PrintStream out) {
    LIQUIBASE.setLevel(Level.WARNING);
    Duration ttl = options.ttl();
    out.println("Leasehold stale-writer demo (TTL " + ttl.toMillis() + " ms)");
    try (DemoDatabase pg = DemoDatabase.start(options);
        HikariDataSource desktopPool = pg.pool("desktop", 4);
        HikariDataSource browserPool = pg.pool("browser", 4);
        HikariDataSource resourcePool = pg.pool("resources", 4)) {
      out.println("database: " + pg.describe());
      LeaseSchema.defaults().apply(resourcePool);
      return new Story(out, ttl, List.of(desktopPool, browserPool), resourcePool).play(options);
    }
  }

  /** One run of the story. */
  private static final class Story {
    private final PrintStream out;
    private final Duration ttl;
    private final Timeline tl;
    private final LeaseKey key = LeaseKey.of("acct-7", "chat-1");
    private final PartitionableDataSource[] nets = new PartitionableDataSource[2];
    private final LeaseStore[] stores = new LeaseStore[2];
    private final String[] names = {"desktop", "browser"};
    private final DemoResources res;
    private final List<Write> writes = new ArrayList<>();
    private final List<Tenure> tenures = new ArrayList<>();
    private final List<String> problems = new ArrayList<>();

    /** {@code devicePools}: the desktop's pool, then the browser's, as {@link #names} says. */
    Story(
        PrintStream out,
        Duration ttl,
        List<HikariDataSource> devicePools,
        HikariDataSource resources) {
      this.out = out;
      this.ttl = ttl;
      this.tl = new Timeline(out);
      for (int i = 0; i < 2; i++) {
        nets[i] = new PartitionableDataSource(devicePools.get(i));
        stores[i] =
            LeaseStore.builder(nets[i])
                .accessPolicy(AccessPolicy.callerOwnsAccount()) // the account may use its session
                .ttl(ttl)
                .defaultHolder(names[i])
                .build();
      }
      res = new DemoResources(DemoResources.tempDir(), resources);
    }

    Verdict play(DemoOptions options) {
      try {
        return playUnclosed(options);
      } finally {
        for (LeaseStore s : stores) {
          s.close();
        }
      }
    }

    private Verdict playUnclosed(DemoOptions options) {
      tl.alignDatabaseClock(stores[0].status(key, "acct-7").databaseNow());

      tl.say(
          "1. The account opens session "
              + key
              + " on two devices; both press Run at the same moment");
      AcquireResult[] results = race();
      int w = results[0] instanceof AcquireResult.Acquired ? 0 : 1;
      int l = 1 - w;
      String winner = names[w];
      String loser = names[l];
      Lease lease = ((AcquireResult.Acquired) results[w]).lease();
      tl.log(
          winner,
          lease.identity(),
          "ACQUIRED",
          "lease expires at " + tl.at(lease.expiresAt()) + " unless renewed (database clock)");
      LeaseStatus busy = ((AcquireResult.Busy) results[l]).status();
      tl.log(loser, null, "BUSY", describeOwner(busy) + "; Run button disabled");
      long winnerFrom = tl.millisAt(lease.acquiredAt());

      tl.say(
          "2. "
              + winner
              + " runs the agent job: three writes, through the file store, the tool executor and the database writer");
      lease.keepAlive();
      job(winner, lease, "draft");

      tl.say("3. " + winner + " freezes: a long GC pause while cut off from the database");
      FencingToken inFlight = lease.token(); // requests it had already built carry this token
      nets[w].partition(true);
      tl.log(winner, inFlight, "FROZEN", "its renewals cannot reach the database");
      LeaseLoss loss =
          await(lease.whenLost(), ttl.multipliedBy(3), "loss of " + winner + "'s lease");
      tl.log(
          winner,
          inFlight,
          "LOST",
          "keeper: "
              + loss.reason()
              + "; work is cancelled, the device stops showing itself as runner");

      Lease next = takeOver(l);
      // Its lease ended at its last expiry by the database clock (its renewals could not reach
      // the database after that): the instant the step 1 and BUSY lines print too.
      long winnerUntil = tl.millisAt(lease.expiresAt());
      tenures.add(
          new Tenure(winner, inFlight, winnerFrom, winnerUntil, "lost (frozen past its TTL)"));
      job(loser, next, "draft");

      tl.say(
          "4. "
              + winner
              + " wakes up and sends its four late writes: file store, tool, chat service, database");
      nets[w].partition(false);
      tryLocally(winner, lease);
      int attempts = 0;
      int refused = 0;
      for (Runnable late :
          List.<Runnable>of(
              () ->
                  res.writeFile(
                      inFlight, "final answer by " + winner + " (fence " + inFlight.fence() + ")"),
              () -> res.callTool(inFlight, "final message from " + winner),
              () -> res.chat.post(inFlight.toText(), "late message from " + winner),
              () -> res.insertRow(inFlight, winner, "final row from " + winner))) {
        attempts++;
        if (lateWrite(winner, inFlight, late, attempts)) {
          refused++;
        }
      }
      lateRenewAndRelease(winner, lease, inFlight, next);

      tl.say("5. " + loser + " finishes its job and releases the lease");
      job(loser, next, "final");
      LeaseStatus beforeRelease = stores[l].status(key, "acct-7");
      ReleaseResult released = next.release();
      tl.log(loser, next.identity(), "RELEASED", released.toString());
      tenures.add(
          new Tenure(
              loser,
              next.identity(),
              tl.millisAt(next.acquiredAt()),
              tl.millisAt(beforeRelease.databaseNow()),
              "released"));

      StoryReport report = new StoryReport(out, tl, res);
      report.check(problems, inFlight, next.identity(), attempts, refused);
      report.print(tenures, writes);
      options.mermaid().ifPresent(this::writeMermaid);
      boolean passed = problems.isEmpty();
      out.println();
      if (passed) {
        out.println(
            "VERDICT: PASS. All "
                + attempts
                + " late writes of the frozen run (fence "
                + inFlight.fence()
                + ") were refused; the final state belongs to the newer run (fence "
                + next.fence()
                + ").");
      } else {
        out.println("VERDICT: FAIL");
        problems.forEach(p -> out.println("  - " + p));
      }
      return new Verdict(
          passed, List.copyOf(problems), attempts, refused, inFlight.fence(), next.fence());
    }

    private AcquireResult[] race() {
      CyclicBarrier barrier = new CyclicBarrier(2);
      List<CompletableFuture<AcquireResult>> presses = new ArrayList<>();
      for (int i = 0; i < 2; i++) {
        LeaseStore store = stores[i];
        String device = names[i];
        presses.add(
            CompletableFuture.supplyAsync(
                () -> {
                  try {
                    barrier.await(10, TimeUnit.SECONDS);
                  } catch (Exception e) {
                    throw new IllegalStateException(e);
                  }
                  tl.log(device, null, "RUN", "presses Run");
                  return store.tryAcquire(key, key.accountId());
                }));
      }
      AcquireResult[] results = {presses.get(0).join(), presses.get(1).join()};
      int winners = 0;
      for (AcquireResult r : results) {
        winners += r instanceof AcquireResult.Acquired ? 1 : 0;
      }
      if (winners != 1) {
        throw new IllegalStateException("expected exactly one winner, got " + winners);
      }
      return results;
    }

    private String describeOwner(LeaseStatus status) {
      return status
          .owner()
          .map(
              o ->
                  o.holder()
                      + " runs (run "
                      + o.runId().toString().substring(0, 8)
                      + ", fence "
                      + o.fence()
                      + ") until "
                      + tl.at(o.expiresAt()))
          .orElse("free");
    }

    /** Three steps of an agent job: a file, a tool call, a row. */
    private void job(String device, Lease lease, String phase) {
      FencingToken t = lease.identity();
      write(
          "file store",
          device,
          t,
          () ->
              res.writeFile(lease, phase + " answer by " + device + " (fence " + t.fence() + ")"));
      write("tool", device, t, () -> res.callTool(lease, phase + " message from " + device));
      write(
          "database", device, t, () -> res.insertRow(lease, device, phase + " row from " + device));
    }

    private void write(String adapter, String device, FencingToken t, Runnable action) {
      action.run();
      writes.add(new Write(adapter, device, t.fence(), true, "admitted"));
      tl.log(device, t, "ADMITTED", adapter);
    }

    private Lease takeOver(int l) {
      String device = names[l];
      long deadline = System.nanoTime() + ttl.multipliedBy(5).toNanos();
      boolean reported = false;
      while (true) {
        AcquireResult r = stores[l].tryAcquire(key, key.accountId());
        if (r instanceof AcquireResult.Acquired a) {
          Lease lease = a.lease().keepAlive();
          tl.log(
              device,
              lease.identity(),
              "ACQUIRED",
              "takes over after the expiry; lease expires at "
                  + tl.at(lease.expiresAt())
                  + " unless renewed");
          return lease;
        }
        if (!reported && r instanceof AcquireResult.Busy b) {
          tl.log(
              device, null, "BUSY", describeOwner(b.status()) + " by the database clock; retrying");
          reported = true;
        }
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException(device + " could not take over within 5 TTLs");
        }
        sleep(Duration.ofMillis(50));
      }
    }

    private void tryLocally(String device, Lease lease) {
      try {
        res.writeFile(lease, "write through the lost lease");
        problems.add("a write through the lost lease handle was admitted");
        tl.log(device, lease.identity(), "ADMITTED!", "through the lost lease handle");
      } catch (LeaseLostException e) {
        tl.log(
            device,
            lease.identity(),
            "REFUSED",
            "locally, before any resource: its lease handle knows it is lost");
      }
    }

    /** A write the frozen run had already sent; true if it was refused. */
    private boolean lateWrite(String device, FencingToken inFlight, Runnable action, int n) {
      String adapter =
          switch (n) {
            case 1 -> "file store";
            case 2 -> "tool";
            case 3 -> "chat service";
            default -> "database";
          };
      try {
        action.run();
        writes.add(new Write(adapter, device, inFlight.fence(), true, "ADMITTED (stale!)"));
        problems.add(adapter + " admitted a stale write with fence " + inFlight.fence());
        tl.log(device, inFlight, "ADMITTED!", adapter + " accepted a stale write");
        return false;
      } catch (StaleFenceException e) {
        String detail = "presented fence " + e.presentedFence() + " < highest " + e.highestFence();
        writes.add(new Write(adapter, device, inFlight.fence(), false, "refused: " + detail));
        tl.log(device, inFlight, "REFUSED", adapter + ": " + detail);
        return true;
      }
    }

    private void lateRenewAndRelease(
        String device, Lease lease, FencingToken inFlight, Lease next) {
      int w = device.equals(names[0]) ? 0 : 1;
      RenewResult renew = lease.renew();
      tl.log(
          device,
          inFlight,
          "RENEW",
          renew.renewed() ? "RENEWED (wrong!)" : "not renewed: it no longer holds the lease");
      ReleaseResult release = stores[w].release(inFlight, "acct-7");
      tl.log(device, inFlight, "RELEASE", release + ": nothing changed");
      LeaseStatus status = stores[w].status(key, "acct-7");
      boolean untouched =
          status.isHeld()
              && status.owner().orElseThrow().runId().equals(next.runId())
              && !status.owner().orElseThrow().expiresAt().isBefore(next.expiresAt());
      tl.log(device, null, "STATUS", describeOwner(status));
      if (renew.renewed() || release.released() || !untouched) {
        problems.add("the frozen run's late renew or release changed the newer run's lease");
      }
    }

    private void writeMermaid(java.nio.file.Path path) {
      try {
        Files.writeString(path, MermaidTimeline.render(tl.events(), ttl));
        out.println("timeline diagram written to " + path);
      } catch (IOException e) {
        out.println("could not write " + path + ": " + e);
      }
    }

    private static <T> T await(CompletableFuture<T> future, Duration bound, String what) {
      try {
        return future.get(bound.toMillis(), TimeUnit.MILLISECONDS);
      } catch (Exception e) {
        throw new IllegalStateException("timed out waiting for " + what, e);
      }
    }

    private static void sleep(Duration d) {
      try {
        Thread.sleep(d.toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted", e);
      }
    }
  }
}
