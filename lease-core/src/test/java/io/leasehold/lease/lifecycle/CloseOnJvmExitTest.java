package io.leasehold.lease.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.fencing.LeaseKey;
import io.leasehold.lease.AccessPolicy;
import io.leasehold.lease.AcquireResult;
import io.leasehold.lease.LeaseOwner;
import io.leasehold.lease.LeaseStatus;
import io.leasehold.lease.LeaseStore;
import io.leasehold.lease.child.AcquireAndHangMain;
import io.leasehold.lease.support.LeaseDatabase;
import io.leasehold.testing.TestDatabaseExtension;
import io.leasehold.testkit.ChildJvm;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Graceful shutdown without a framework: a process whose store was built with {@code
 * closeOnJvmExit(true)} releases its leases when it is stopped with SIGTERM, so the next process
 * takes over at once; without it, the lease waits out its TTL. Leases last a minute here, so only a
 * release can free the key within the test.
 */
@Timeout(120)
class CloseOnJvmExitTest {
  @RegisterExtension static final TestDatabaseExtension db = LeaseDatabase.extension();

  private static ChildJvm child(LeaseKey key, boolean closeOnExit) throws Exception {
    return LeaseDatabase.child(
        db, AcquireAndHangMain.class, key, "60000", closeOnExit ? "closeOnJvmExit" : "-");
  }

  /**
   * The child's run, the key's status once SIGTERM (which runs shutdown hooks) stopped it, and what
   * an acquire of the key answered right after.
   */
  private record Stopped(UUID run, LeaseStatus status, AcquireResult next) {}

  private static Stopped sigterm(String session, boolean closeOnExit) throws Exception {
    LeaseKey key = LeaseKey.of("acct", session);
    try (LeaseStore store =
            LeaseStore.builder(db.dataSource()).accessPolicy(AccessPolicy.allowAll()).build();
        ChildJvm child = child(key, closeOnExit)) {
      UUID run = UUID.fromString(child.awaitLine("ACQUIRED ", 60).split(" ")[2]);
      child.process().destroy();
      child.awaitExit(30);
      return new Stopped(run, store.status(key, "acct"), store.tryAcquire(key, "acct"));
    }
  }

  @Test
  void sigtermReleasesTheLeasesOfAStoreThatClosesOnExit() throws Exception {
    Stopped stopped = sigterm("sigterm-release", true);
    assertThat(stopped.status().state()).isEqualTo(LeaseStatus.State.FREE);
    LeaseOwner last = stopped.status().owner().orElseThrow();
    assertThat(last.runId()).isEqualTo(stopped.run());
    assertThat(last.releasedAt()).as("released, not expired").isNotNull();
    assertThat(stopped.next()).isInstanceOf(AcquireResult.Acquired.class);
  }

  @Test
  void withoutItTheLeaseOutlivesTheProcess() throws Exception {
    Stopped stopped = sigterm("sigterm-kept", false);
    assertThat(stopped.status().state()).isEqualTo(LeaseStatus.State.HELD);
    assertThat(stopped.status().owner()).map(LeaseOwner::runId).contains(stopped.run());
    assertThat(stopped.next()).isInstanceOf(AcquireResult.Busy.class);
  }
}
