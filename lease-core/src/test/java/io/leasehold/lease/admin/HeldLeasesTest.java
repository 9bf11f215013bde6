package io.leasehold.lease.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.leasehold.fencing.LeaseKey;
import io.leasehold.lease.AccessPolicy;
import io.leasehold.lease.AcquireResult;
import io.leasehold.lease.Lease;
import io.leasehold.lease.LeaseAdmin;
import io.leasehold.lease.LeaseStatus;
import io.leasehold.lease.LeaseStore;
import io.leasehold.lease.support.LeaseDatabase;
import io.leasehold.testing.TestDatabaseExtension;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The operator's listing of held leases, and the health probe's database time. */
class HeldLeasesTest {
  @RegisterExtension static final TestDatabaseExtension db = LeaseDatabase.extension();

  @Test
  void listsLiveLeasesOfEveryProcessThatTheCallerMayRead() throws Exception {
    // Callers read their own account; "ops" reads every account.
    AccessPolicy policy = (caller, key) -> caller.equals("ops") || caller.equals(key.accountId());
    try (LeaseStore store = LeaseDatabase.store(db, policy, Duration.ofSeconds(30));
        LeaseStore other =
            LeaseDatabase.store(db, AccessPolicy.allowAll(), Duration.ofSeconds(60))) {
      Lease a1 = ((AcquireResult.Acquired) store.tryAcquire(LeaseKey.of("a", "one"), "a")).lease();
      Lease b1 = ((AcquireResult.Acquired) other.tryAcquire(LeaseKey.of("b", "one"), "b")).lease();
      Lease released =
          ((AcquireResult.Acquired) store.tryAcquire(LeaseKey.of("a", "gone"), "a")).lease();
      released.release();
      store.tryAcquire(LeaseKey.of("a", "expired"), "a");
      db.database()
          .execute(
              "UPDATE leasehold_lease SET expires_at = statement_timestamp() - interval '1 s'"
                  + " WHERE session_id = 'expired'");

      List<LeaseStatus> all = store.admin().heldLeases("ops", 100);
      assertThat(all)
          .extracting(LeaseStatus::key)
          .containsExactly(LeaseKey.of("a", "one"), LeaseKey.of("b", "one"));
      assertThat(all).allSatisfy(s -> assertThat(s.state()).isEqualTo(LeaseStatus.State.HELD));
      assertThat(all.get(0).owner().orElseThrow().fence()).isEqualTo(a1.fence());
      assertThat(all.get(1).owner().orElseThrow().runId()).isEqualTo(b1.runId());
      assertThat(all.get(1).remaining()).isGreaterThan(Duration.ofSeconds(30));

      assertThat(store.admin().heldLeases("a", 100))
          .extracting(LeaseStatus::key)
          .containsExactly(LeaseKey.of("a", "one"));
      assertThat(store.admin().heldLeases("ops", 1)).hasSize(1);
      assertThatThrownBy(() -> store.admin().heldLeases("ops", 0))
          .isInstanceOf(IllegalArgumentException.class);
      assertThatThrownBy(() -> store.admin().heldLeases("ops", LeaseAdmin.MAX_LISTED + 1))
          .isInstanceOf(IllegalArgumentException.class);
    }
  }

  /**
   * Issue 27, finding 10: the limit was applied before the policy, so bob saw none of his own
   * leases when other accounts' leases expired sooner.
   */
  @Test
  void theLimitCountsOnlyWhatTheCallerMaySee() throws Exception {
    AccessPolicy policy = (caller, key) -> caller.equals(key.accountId());
    try (LeaseStore store = LeaseDatabase.store(db, policy, Duration.ofSeconds(10));
        LeaseStore later = LeaseDatabase.store(db, policy, Duration.ofSeconds(60))) {
      for (int i = 0; i < 20; i++) {
        store.tryAcquire(LeaseKey.of("mallory-held", "s" + i), "mallory-held");
      }
      Lease bobs =
          ((AcquireResult.Acquired) later.tryAcquire(LeaseKey.of("bob-held", "mine"), "bob-held"))
              .lease();

      assertThat(later.admin().heldLeases("bob-held", 10))
          .extracting(s -> s.owner().orElseThrow().runId())
          .containsExactly(bobs.runId());
      assertThat(store.admin().heldLeases("mallory-held", 5)).hasSize(5);
    }
  }

  @Test
  void theProbeReadsTheDatabaseClock() {
    try (LeaseStore store =
        LeaseStore.builder(db.dataSource()).accessPolicy(AccessPolicy.allowAll()).build()) {
      Instant before = Instant.now().minusSeconds(60);
      assertThat(store.databaseTime()).isAfter(before).isBefore(Instant.now().plusSeconds(60));
      store.close();
      assertThatThrownBy(store::databaseTime).isInstanceOf(IllegalStateException.class);
    }
  }
}
