package io.leasehold.lease.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.leasehold.fencing.LeaseKey;
import io.leasehold.lease.AccessPolicy;
import io.leasehold.lease.Lease;
import io.leasehold.lease.LeaseStore;
import io.leasehold.lease.LeaseStoreException;
import io.leasehold.lease.support.LeaseDatabase;
import io.leasehold.testing.TestDatabaseExtension;
import java.sql.SQLException;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * CONTRACT C3 for a swept key after its sequence was set back. An outside check swept a key whose
 * fence was 2514, set the sequence back ({@code setval(..., 1)}; {@code ALTER SEQUENCE ... RESTART}
 * did the same), and the key's next run got fence 3; a fresh store and the health probe noticed
 * nothing. The sweep now records the highest fence it deleted, a key's first acquire draws above
 * it, and stores refuse, naming the repair, until the sequence is back above it.
 */
class SweptKeySequenceSetBackTest {
  @RegisterExtension static final TestDatabaseExtension db = LeaseDatabase.extension();

  private static LeaseStore store() {
    return LeaseStore.builder(db.dataSource())
        .accessPolicy(AccessPolicy.allowAll().withAdministrators(Set.of("ops")))
        .build();
  }

  @Test
  void aSweptKeyNeverGetsAFenceItHadAfterTheSequenceIsSetBack() throws SQLException {
    check("SELECT setval('leasehold_fence_seq', 1)", "setval-account");
  }

  /**
   * Citus refuses {@code ALTER SEQUENCE} on the coordinator unless its propagation is turned off,
   * which the outside check did; on plain PostgreSQL that setting is an unused placeholder.
   */
  @Test
  void aSweptKeyNeverGetsAFenceItHadAfterTheSequenceIsRestarted() throws SQLException {
    check(
        "SET citus.enable_ddl_propagation = off; ALTER SEQUENCE leasehold_fence_seq RESTART WITH 1",
        "restart-account");
  }

  private static void check(String setBack, String account) throws SQLException {
    LeaseKey swept = LeaseKey.of(account, "swept");
    try (LeaseStore store = store()) {
      long last = LeaseDatabase.sweptAfterLeases(db, store, swept, 5);
      db.database().execute(setBack);

      // The key's next fence is above every fence it had, although the sequence is below them.
      Lease again = store.tryAcquire(swept, account).acquiredLease().orElseThrow();
      assertThat(again.fence()).isGreaterThan(last);
      again.release();

      // The probe and a fresh store say the sequence went back, and how to repair it.
      assertThatThrownBy(store::databaseTime)
          .isInstanceOf(LeaseStoreException.class)
          .hasMessageContaining("below the fence floor " + last)
          .hasMessageContaining("SELECT setval('leasehold_fence_seq', GREATEST(");
      try (LeaseStore fresh = store()) {
        assertThatThrownBy(() -> fresh.tryAcquire(LeaseKey.of(account, "new"), account))
            .isInstanceOf(LeaseStoreException.class)
            .hasMessageContaining("below the fence floor");
      }

      // The repair the refusal names.
      db.database()
          .execute(
              "SELECT setval('leasehold_fence_seq', GREATEST((SELECT max(fence) FROM"
                  + " leasehold_lease_fence_floor), (SELECT COALESCE(max(fence), 0) FROM leasehold_lease)))");
      assertThat(store.databaseTime()).isNotNull();
      Lease repaired = store.tryAcquire(swept, account).acquiredLease().orElseThrow();
      assertThat(repaired.fence()).isGreaterThan(again.fence());
      repaired.release();
    }
  }
}
