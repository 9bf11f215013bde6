package io.leasehold.lease.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.leasehold.fencing.LeaseKey;
import io.leasehold.lease.AccessPolicy;
import io.leasehold.lease.AcquireResult;
import io.leasehold.lease.Lease;
import io.leasehold.lease.LeaseStore;
import io.leasehold.lease.LeaseStoreBuilder;
import io.leasehold.lease.LeaseStoreException;
import io.leasehold.lease.LeaseStoreListener;
import io.leasehold.lease.support.LeaseDatabase;
import io.leasehold.testing.TestDataSources;
import io.leasehold.testing.TestDatabaseExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The listener's start and end events pair up on one thread, whatever the outcome: what tracing
 * (LeaseholdObservations) relies on.
 */
class ListenerPairingTest {
  @RegisterExtension static final TestDatabaseExtension db = LeaseDatabase.extension();

  /** Records "thread:event" and checks the nesting as it goes. */
  static final class Pairs implements LeaseStoreListener {
    final List<String> events = java.util.Collections.synchronizedList(new ArrayList<>());
    final ThreadLocal<java.util.ArrayDeque<Operation>> open =
        ThreadLocal.withInitial(java.util.ArrayDeque::new);
    final List<String> mismatches = java.util.Collections.synchronizedList(new ArrayList<>());

    @Override
    public void started(Operation operation) {
      open.get().push(operation);
      events.add("start " + operation);
    }

    private void ended(Operation operation, String outcome) {
      Operation top = open.get().poll();
      if (top != operation) {
        mismatches.add(
            "ended "
                + operation
                + " while "
                + top
                + " was open on "
                + Thread.currentThread().getName());
      }
      events.add("end " + operation + " " + outcome);
    }

    @Override
    public void acquireEnded(AcquireOutcome outcome, Duration latency) {
      ended(Operation.ACQUIRE, outcome.name());
    }

    @Override
    public void releaseEnded(ReleaseOutcome outcome, Duration latency) {
      ended(Operation.RELEASE, outcome.name());
    }

    @Override
    public void renewalRound(int leases, int lost, Duration latency) {
      ended(Operation.RENEWAL, "ROUND");
    }

    @Override
    public void renewalFailed(int leases, Duration latency, Throwable error) {
      ended(Operation.RENEWAL, "FAILED");
    }
  }

  @Test
  void everyStartHasOneEndOnTheSameThread() throws Exception {
    Pairs pairs = new Pairs();
    LeaseKey key = LeaseKey.of("acct", "paired");
    LeaseStoreBuilder builder =
        LeaseStore.builder(db.dataSource()).accessPolicy(AccessPolicy.allowAll());
    try (LeaseStore store =
        builder.ttl(Duration.ofSeconds(3)).renewInterval(Duration.ofMillis(100)).build()) {
      store.addListener(pairs);
      Lease lease = ((AcquireResult.Acquired) store.tryAcquire(key, "acct")).lease().keepAlive();
      store.tryAcquire(key, "acct");
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
      while (!pairs.events.contains("end RENEWAL ROUND")) {
        assertThat(System.nanoTime()).as("no renewal round").isLessThan(deadline);
        Thread.sleep(20);
      }
      lease.release();
      lease.release(); // not held any more
    }
    assertThat(pairs.mismatches).isEmpty();
    assertThat(pairs.events)
        .containsSubsequence(
            "start ACQUIRE",
            "end ACQUIRE ACQUIRED",
            "start ACQUIRE",
            "end ACQUIRE BUSY",
            "start RENEWAL",
            "end RENEWAL ROUND",
            "start RELEASE",
            "end RELEASE RELEASED");
    assertThat(pairs.events.stream().filter(e -> e.startsWith("start")).count())
        .isEqualTo(pairs.events.stream().filter(e -> e.startsWith("end")).count());
  }

  @Test
  void aFailingDatabaseStillEndsWhatStarted() {
    Pairs pairs = new Pairs();
    DataSource down = TestDataSources.unreachable();
    try (LeaseStore store =
        LeaseStore.builder(down).accessPolicy(AccessPolicy.allowAll()).build()) {
      store.addListener(pairs);
      assertThatThrownBy(() -> store.tryAcquire(LeaseKey.of("acct", "down"), "acct"))
          .isInstanceOf(LeaseStoreException.class);
      assertThatThrownBy(
              () ->
                  store.release(
                      new io.leasehold.fencing.FencingToken(
                          LeaseKey.of("acct", "down"), 1, java.util.UUID.randomUUID()),
                      "acct"))
          .isInstanceOf(LeaseStoreException.class);
    }
    assertThat(pairs.mismatches).isEmpty();
    assertThat(pairs.events)
        .containsExactly(
            "start ACQUIRE", "end ACQUIRE ERROR", "start RELEASE", "end RELEASE ERROR");
  }
}
