package io.leasehold.lease.citus;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.fencing.LeaseKey;
import io.leasehold.lease.AccessPolicy;
import io.leasehold.lease.AcquireResult;
import io.leasehold.lease.Lease;
import io.leasehold.lease.LeaseSchema;
import io.leasehold.lease.LeaseStore;
import io.leasehold.testing.TestDatabaseExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A lease database that gets Citus after it was created: its single-server tables, with their rows,
 * are distributed by the next {@link LeaseSchema#apply}, and fences go on rising. The database is
 * made to look like one created before the extension by turning the tables back into local ones
 * ({@code undistribute_table}); the Citus change sets run on every apply while a table is local, so
 * their history rows stay as they are (an outside check found a table made local again left local
 * by the next apply). Runs on the coordinator named by {@code LEASEHOLD_CITUS_URL}, skipped without
 * it (docs/scale-out.md).
 */
class CitusSchemaUpgradeTest {
  @RegisterExtension
  static final TestDatabaseExtension db =
      TestDatabaseExtension.citus(ds -> LeaseSchema.defaults().apply(ds));

  private static final LeaseKey KEY = LeaseKey.of("upgraded-account", "upgraded-session");

  @Test
  void aSingleServerSchemaIsDistributedInPlaceByTheNextApply() {
    long before;
    try (LeaseStore store = store()) {
      before = acquireAndRelease(store);
    }
    db.database().execute("SELECT undistribute_table('leasehold_lease')");
    db.database().execute("SELECT undistribute_table('leasehold_lease_audit')");
    db.database().execute("SELECT undistribute_table('leasehold_lease_fence_floor')");
    assertThat(distributed()).isZero();

    LeaseSchema.defaults().apply(db.dataSource());

    assertThat(distributed()).isEqualTo(3);
    assertThat(
            db.database()
                .queryOne(
                    "SELECT string_agg(logicalrelid::text || ' ' || partmethod::text, ', '"
                        + " ORDER BY logicalrelid::text) FROM pg_dist_partition",
                    String.class))
        .isEqualTo("leasehold_lease h, leasehold_lease_audit n, leasehold_lease_fence_floor n");
    try (LeaseStore store = store()) {
      assertThat(store.status(KEY, "upgrade").owner().orElseThrow().fence()).isEqualTo(before);
      assertThat(acquireAndRelease(store)).isGreaterThan(before);
    }
  }

  private static long distributed() {
    return db.database()
        .queryOne(
            "SELECT count(*) FROM pg_dist_partition WHERE logicalrelid IN"
                + " ('leasehold_lease'::regclass, 'leasehold_lease_audit'::regclass,"
                + " 'leasehold_lease_fence_floor'::regclass)",
            Long.class);
  }

  private static LeaseStore store() {
    return LeaseStore.builder(db.dataSource()).accessPolicy(AccessPolicy.allowAll()).build();
  }

  private static long acquireAndRelease(LeaseStore store) {
    AcquireResult r = store.tryAcquire(KEY, "upgrade");
    assertThat(r).isInstanceOf(AcquireResult.Acquired.class);
    Lease lease = ((AcquireResult.Acquired) r).lease();
    lease.release();
    return lease.fence();
  }
}
