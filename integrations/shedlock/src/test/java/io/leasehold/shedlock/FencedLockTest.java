package io.leasehold.shedlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.InMemoryFenceGuard;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.LeaseLostException;
import io.leasehold.fencing.StaleFenceException;
import io.leasehold.fencing.TokenVerifier;
import io.leasehold.lease.AccessPolicy;
import io.leasehold.lease.LeaseSchema;
import io.leasehold.lease.LeaseStatus;
import io.leasehold.lease.LeaseStore;
import io.leasehold.testing.TestDatabaseExtension;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What the provider adds to ShedLock: a job paused past {@code lockAtMostFor}, whose lock another
 * node then took, is refused by a guard, both through its lock and with a token it kept.
 */
class FencedLockTest {
  @RegisterExtension
  static final TestDatabaseExtension db = TestDatabaseExtension.withTemplate("shedlock", ds -> LeaseSchema.defaults().apply(ds));

  private static LockConfiguration config(String name, Duration atMost) {
    return new LockConfiguration(Instant.now(), name, atMost, Duration.ZERO);
  }

  @Test
  void aPausedJobWhoseLockWasTakenOverIsRefusedByTheGuard() throws Exception {
    try (LeaseStore store = LeaseStore.builder(db.dataSource()).accessPolicy(AccessPolicy.allowAll()).build()) {
      LeaseholdLockProvider provider = LeaseholdLockProvider.of(store, "scheduler");
      InMemoryFenceGuard guard = InMemoryFenceGuard.builder().verifier(TokenVerifier.trustEveryWriter()).build();
      List<String> report = new ArrayList<>();

      FencedLock paused = (FencedLock) provider.lock(config("nightly-report", Duration.ofMillis(300))).orElseThrow();
      FencingToken kept = paused.token();
      guard.runFenced(paused, () -> report.add("first run, part 1"));

      // The first node stalls; by the database clock its lock ends, and another node takes it.
      LeaseKey key = LeaseKey.of("scheduler", "nightly-report");
      long bound = System.nanoTime() + Duration.ofSeconds(20).toNanos();
      while (store.status(key, "scheduler").state() != LeaseStatus.State.FREE) {
        assertThat(System.nanoTime() - bound).as("the lock expires by the database clock").isNegative();
        Thread.sleep(20);
      }
      FencedLock next = (FencedLock) provider.lock(config("nightly-report", Duration.ofMinutes(5))).orElseThrow();
      assertThat(next.token().fence()).isGreaterThan(kept.fence());
      guard.runFenced(next, () -> report.add("second run"));

      // The first node wakes: through its lock it is refused locally, with its kept token by the guard.
      assertThatThrownBy(() -> guard.runFenced(paused, () -> report.add("first run, part 2")))
          .isInstanceOf(LeaseLostException.class);
      assertThatThrownBy(() -> guard.runFenced(kept, () -> report.add("first run, part 2")))
          .isInstanceOf(StaleFenceException.class);
      assertThat(report).containsExactly("first run, part 1", "second run");
      next.unlock();
      paused.unlock(); // as ShedLock's executor does in its finally block: the lease had ended
      assertThat(FencedLock.current()).isEmpty();
    }
  }

  @Test
  void aTaskFindsTheLockItsThreadHoldsUntilItIsUnlocked() {
    try (LeaseStore store = LeaseStore.builder(db.dataSource()).accessPolicy(AccessPolicy.allowAll()).build()) {
      LeaseholdLockProvider provider = LeaseholdLockProvider.of(store, "scheduler");
      assertThat(FencedLock.current()).isEmpty();
      SimpleLock outer = provider.lock(config("outer", Duration.ofSeconds(30))).orElseThrow();
      SimpleLock inner = provider.lock(config("inner", Duration.ofSeconds(30))).orElseThrow();
      assertThat(FencedLock.current()).containsSame((FencedLock) inner);
      SimpleLock extended = inner.extend(Duration.ofSeconds(60), Duration.ZERO).orElseThrow();
      assertThat(FencedLock.current()).containsSame((FencedLock) extended);
      extended.unlock();
      assertThat(FencedLock.current()).containsSame((FencedLock) outer);
      outer.unlock();
      assertThat(FencedLock.current()).isEmpty();
    }
  }

  @Test
  void aLockIsRefusedForANameThatIsNotAValidKeyAndForLengthsOutOfRange() {
    try (LeaseStore store = LeaseStore.builder(db.dataSource()).accessPolicy(AccessPolicy.allowAll()).build()) {
      LeaseholdLockProvider provider = LeaseholdLockProvider.of(store, "scheduler");
      assertThatThrownBy(() -> provider.lock(config("x".repeat(200), Duration.ofSeconds(1))))
          .isInstanceOf(IllegalArgumentException.class);
      assertThatThrownBy(() -> provider.lock(config("too-long", Duration.ofDays(3))))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("one-shot ttl");
      Optional<SimpleLock> ok = provider.lock(config("fine", Duration.ofSeconds(1)));
      assertThat(ok).isPresent();
      ok.get().unlock();
      assertThatThrownBy(() -> LeaseholdLockProvider.of(store, "", "x")).isInstanceOf(IllegalArgumentException.class);
    }
  }
}
