package io.leasehold.lease;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.fencing.LeaseKey;
import io.leasehold.testing.TestDatabase;
import io.leasehold.testing.TestDatabaseExtension;
import io.leasehold.testkit.ChildJvm;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Graceful shutdown without a framework: a process whose store was built with {@code
 * closeOnJvmExit(true)} releases its leases when it is stopped with SIGTERM, so the next process
 * takes over at once; without it, the lease waits out its TTL. Leases last a minute here, so only
 * a release can free the key within the test.
 */
@Timeout(120)
class CloseOnJvmExitTest {
  @RegisterExtension static final TestDatabaseExtension db = LeaseDatabase.extension();

  private static ChildJvm child(LeaseKey key, boolean closeOnExit) throws Exception {
    TestDatabase database = db.database();
    return ChildJvm.start(
        AcquireAndHangMain.class,
        database.jdbcUrl(),
        database.server().user(),
        database.server().password(),
        key.accountId(),
        key.sessionId(),
        "60000",
        closeOnExit ? "closeOnJvmExit" : "-");
  }

  @Test
  void sigtermReleasesTheLeasesOfAStoreThatClosesOnExit() throws Exception {
    LeaseKey key = LeaseKey.of("acct", "sigterm-release");
    try (LeaseStore store = LeaseStore.builder(db.dataSource()).accessPolicy(AccessPolicy.allowAll()).build();
        ChildJvm child = child(key, true)) {
      UUID run = UUID.fromString(child.awaitLine("ACQUIRED ", 60).split(" ")[2]);
      child.process().destroy(); // SIGTERM: shutdown hooks run
      child.awaitExit(30);
      LeaseStatus status = store.status(key, "acct");
      assertThat(status.state()).isEqualTo(LeaseStatus.State.FREE);
      assertThat(status.owner().orElseThrow().runId()).isEqualTo(run);
      assertThat(status.owner().orElseThrow().releasedAt()).as("released, not expired").isNotNull();
      assertThat(store.tryAcquire(key, "acct")).isInstanceOf(AcquireResult.Acquired.class);
    }
  }

  @Test
  void withoutItTheLeaseOutlivesTheProcess() throws Exception {
    LeaseKey key = LeaseKey.of("acct", "sigterm-kept");
    try (LeaseStore store = LeaseStore.builder(db.dataSource()).accessPolicy(AccessPolicy.allowAll()).build();
        ChildJvm child = child(key, false)) {
      UUID run = UUID.fromString(child.awaitLine("ACQUIRED ", 60).split(" ")[2]);
      child.process().destroy();
      child.awaitExit(30);
      LeaseStatus status = store.status(key, "acct");
      assertThat(status.state()).isEqualTo(LeaseStatus.State.HELD);
      assertThat(status.owner().orElseThrow().runId()).isEqualTo(run);
    }
  }
}
