package io.leasehold.lease.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.fencing.LeaseKey;
import io.leasehold.lease.AccessPolicy;
import io.leasehold.lease.AcquireResult;
import io.leasehold.lease.LeaseStatus;
import io.leasehold.lease.LeaseStore;
import io.leasehold.lease.child.AcquireAndHangMain;
import io.leasehold.lease.support.LeaseDatabase;
import io.leasehold.lease.support.StatusPolling;
import io.leasehold.testing.TestDatabase;
import io.leasehold.testing.TestDatabaseExtension;
import io.leasehold.testkit.ChildJvm;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The seed's crash case: a separate JVM acquires, keeps its lease alive and is killed. Its lease
 * stays held until it expires by database time, then status shows it free and another run takes
 * over with a higher fence.
 */
class KilledProcessTest {
  @RegisterExtension static final TestDatabaseExtension db = LeaseDatabase.extension();

  @Test
  void leaseOfAKilledProcessExpiresAndCanBeTakenOver() throws Exception {
    TestDatabase database = db.database();
    LeaseKey key = LeaseKey.of("acct", "crash");
    // Long enough for a cold child JVM on a busy machine: at 1.5 s its first acquire (the fence
    // check and the acquire, each on a new connection) once arrived after the local deadline and
    // was answered TooLate, and its first renewal once came after the lease was lost locally; at
    // 3 s (a 750 ms statement budget, each renewal on a new connection of the child's unpooled
    // data source) the child's lease was once never renewed in CI at a load of about 10.
    Duration ttl = Duration.ofSeconds(6);
    try (LeaseStore store =
            LeaseStore.builder(database.dataSource())
                .accessPolicy(AccessPolicy.allowAll())
                .build();
        ChildJvm child =
            LeaseDatabase.child(db, AcquireAndHangMain.class, key, Long.toString(ttl.toMillis()))) {
      String[] line = child.awaitLine("ACQUIRED ", 60).split(" ");
      long childFence = Long.parseLong(line[1]);
      UUID childRun = UUID.fromString(line[2]);

      // The child renews: after more than a TTL its lease is still the live one.
      Instant firstExpiry = store.status(key, "app").owner().orElseThrow().expiresAt();
      LeaseStatus held =
          StatusPolling.awaitStatus(
              store,
              key,
              s -> s.owner().orElseThrow().expiresAt().isAfter(firstExpiry),
              ttl.multipliedBy(4));
      assertThat(held.state()).isEqualTo(LeaseStatus.State.HELD);
      assertThat(held.owner().orElseThrow().runId()).isEqualTo(childRun);
      assertThat(store.tryAcquire(key, "acct")).isInstanceOf(AcquireResult.Busy.class);

      child.kill();
      assertThat(child.process().isAlive()).isFalse();

      // Nobody releases it: it ends by expiry alone, no later than a TTL after its last renewal.
      LeaseStatus free =
          StatusPolling.awaitStatus(
              store, key, s -> s.state() == LeaseStatus.State.FREE, ttl.multipliedBy(3));
      assertThat(free.owner().orElseThrow().runId()).isEqualTo(childRun);
      assertThat(free.owner().orElseThrow().releasedAt()).isNull();

      AcquireResult next = store.tryAcquire(key, "acct");
      assertThat(next)
          .isInstanceOfSatisfying(
              AcquireResult.Acquired.class,
              a -> assertThat(a.lease().fence()).isGreaterThan(childFence));
    }
  }
}
