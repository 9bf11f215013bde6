package io.leasehold.lease.citus;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.fencing.LeaseKey;
import io.leasehold.lease.AccessPolicy;
import io.leasehold.lease.Lease;
import io.leasehold.lease.LeaseSchema;
import io.leasehold.lease.LeaseStore;
import io.leasehold.lease.support.LeaseDatabase;
import io.leasehold.testing.TestDatabaseExtension;
import io.leasehold.testing.TestEnvironment;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * CONTRACT C3 across a restart of the Citus coordinator, where the fence sequence and the fence
 * floor live: a crash ({@code pg_ctl stop -m immediate}, no shutdown checkpoint) and a fast stop.
 * One store lives through the restart, as a process that outlives it would. Before it, a key is
 * held (its lease then expires), a key released and a key swept (its row deleted, its fence left in
 * the floor); after it, each key's next fence is above its last, every fence is from the
 * coordinator's series (below the workers' ranges, at most the sequence's last value) and the floor
 * still holds the swept key's fence.
 *
 * <p>Runs on the coordinator named by {@code LEASEHOLD_CITUS_URL} when {@value #RESTART_ENV} names
 * a command that restarts that coordinator, given the stop mode ({@code immediate} or {@code fast})
 * as its one argument, and returns once it accepts connections again (docs/scale-out.md). Skipped
 * otherwise, with one line. Use a cluster of its own: the restart ends every session on it.
 */
class CitusCoordinatorRestartTest {
  @RegisterExtension
  static final TestDatabaseExtension db =
      TestDatabaseExtension.citus(ds -> LeaseSchema.defaults().apply(ds));

  /** The command that restarts the coordinator. */
  static final String RESTART_ENV = "LEASEHOLD_CITUS_RESTART";

  /** Fences drawn on a worker start at 2^48 and up (its group's range of the sequence). */
  private static final long WORKER_RANGE = 1L << 48;

  private static final Duration TTL = Duration.ofSeconds(2);

  @Test
  void fencesKeepRisingAcrossACrashOfTheCoordinator() throws Exception {
    acrossARestart("immediate");
  }

  @Test
  void fencesKeepRisingAcrossAFastRestartOfTheCoordinator() throws Exception {
    acrossARestart("fast");
  }

  private static void acrossARestart(String mode) throws Exception {
    db.database(); // skipped without a coordinator first
    String command =
        TestEnvironment.required(
            RESTART_ENV,
            "Coordinator restart test skipped: set "
                + RESTART_ENV
                + " to a command that restarts the coordinator of LEASEHOLD_CITUS_URL given the stop"
                + " mode (immediate or fast), see docs/scale-out.md");
    String account = "restart-" + mode;
    LeaseKey held = LeaseKey.of(account, "held");
    LeaseKey released = LeaseKey.of(account, "released");
    LeaseKey swept = LeaseKey.of(account, "swept");
    try (LeaseStore store =
        LeaseStore.builder(db.dataSource())
            .accessPolicy(AccessPolicy.allowAll().withAdministrators(Set.of("ops")))
            .ttl(TTL)
            .build()) {
      Lease heldLease = store.tryAcquire(held, account).acquiredLease().orElseThrow();
      Lease releasedLease = store.tryAcquire(released, account).acquiredLease().orElseThrow();
      releasedLease.release();
      long sweptFence = LeaseDatabase.sweptAfterLeases(db, store, swept, 3);
      long lastBefore = sequenceLastValue();

      restart(command, mode);

      // The held lease expires in database time; the waiting acquire takes it over then.
      Lease takenOver =
          store.acquire(held, account, Duration.ofSeconds(60)).acquiredLease().orElseThrow();
      Lease releasedAgain = store.tryAcquire(released, account).acquiredLease().orElseThrow();
      Lease sweptAgain = store.tryAcquire(swept, account).acquiredLease().orElseThrow();
      long lastAfter = sequenceLastValue();
      System.out.printf(
          "coordinator restart (%s): held %d -> %d, released %d -> %d, swept %d -> %d,"
              + " sequence's last value %d before, %d after%n",
          mode,
          heldLease.fence(),
          takenOver.fence(),
          releasedLease.fence(),
          releasedAgain.fence(),
          sweptFence,
          sweptAgain.fence(),
          lastBefore,
          lastAfter);
      assertThat(takenOver.fence()).isGreaterThan(heldLease.fence());
      assertThat(releasedAgain.fence()).isGreaterThan(releasedLease.fence());
      assertThat(sweptAgain.fence()).isGreaterThan(sweptFence);
      // Drawn from the coordinator's sequence after the restart: above what it had handed out
      // before, no higher than its last value now, and nowhere near a worker's range.
      for (Lease after : List.of(takenOver, releasedAgain, sweptAgain)) {
        assertThat(after.fence()).isGreaterThan(lastBefore).isLessThanOrEqualTo(lastAfter);
        assertThat(after.fence()).isLessThan(WORKER_RANGE);
      }
      assertThat(
              db.database()
                  .queryOne("SELECT max(fence) FROM leasehold_lease_fence_floor", Long.class))
          .isGreaterThanOrEqualTo(sweptFence);
      for (Lease l : List.of(takenOver, releasedAgain, sweptAgain)) {
        l.release();
      }
    }
  }

  private static long sequenceLastValue() {
    return db.database().queryOne("SELECT last_value FROM leasehold_fence_seq", Long.class);
  }

  /** Runs the restart command with the stop mode; it must succeed within two minutes. */
  private static void restart(String command, String mode) throws Exception {
    Process p =
        new ProcessBuilder(command, mode)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.PIPE)
            .start();
    if (!p.waitFor(2, TimeUnit.MINUTES)) {
      p.destroyForcibly();
      throw new IllegalStateException(command + " " + mode + " did not finish within 2 minutes");
    }
    String output;
    try (var in = p.getInputStream()) {
      output = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      output = "(output unreadable: " + e + ")";
    }
    if (p.exitValue() != 0) {
      throw new IllegalStateException(
          command + " " + mode + " exited with " + p.exitValue() + ": " + output);
    }
  }
}
