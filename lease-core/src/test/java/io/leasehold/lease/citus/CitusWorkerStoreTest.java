package io.leasehold.lease.citus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.leasehold.fencing.LeaseKey;
import io.leasehold.lease.AccessPolicy;
import io.leasehold.lease.AcquireResult;
import io.leasehold.lease.LeaseSchema;
import io.leasehold.lease.LeaseStore;
import io.leasehold.lease.LeaseStoreException;
import io.leasehold.testing.TestDatabase;
import io.leasehold.testing.TestDatabaseExtension;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A store pointed at a worker of the cluster, not its coordinator, is refused before it draws a
 * fence, and its health probe fails (CONTRACT C3): an outside check had such a store draw fences
 * from the worker's own range of the sequence (2^48 and up), and a sweep from it deleted a row the
 * coordinator's sweep keeps, after which the coordinator granted the key a lower fence. The worker
 * is found in the coordinator's {@code pg_dist_node}, reached with the coordinator's user and
 * password. Runs on the coordinator named by {@code LEASEHOLD_CITUS_URL}, skipped without it.
 */
class CitusWorkerStoreTest {
  @RegisterExtension
  static final TestDatabaseExtension db =
      TestDatabaseExtension.citus(ds -> LeaseSchema.defaults().apply(ds));

  @Test
  void aStoreOnAWorkerRefusesAndTheCoordinatorsGrants() {
    TestDatabase coordinator = db.database();
    List<Object> worker =
        coordinator
            .query(
                "SELECT nodename, nodeport, groupid FROM pg_dist_node WHERE groupid <> 0"
                    + " AND noderole = 'primary' ORDER BY groupid LIMIT 1")
            .get(0);
    String url =
        "jdbc:postgresql://" + worker.get(0) + ":" + worker.get(1) + "/" + coordinator.name();
    DataSource onWorker =
        TestDatabase.connect(url, coordinator.server().user(), coordinator.server().password());
    LeaseKey key = LeaseKey.of("worker-account", "worker-session");
    try (LeaseStore store =
        LeaseStore.builder(onWorker)
            .accessPolicy(AccessPolicy.allowAll().withAdministrators(java.util.Set.of("ops")))
            .build()) {
      assertThatThrownBy(() -> store.tryAcquire(key, "worker-account"))
          .isInstanceOf(LeaseStoreException.class)
          .hasMessageContaining("is a Citus worker (node group " + worker.get(2) + ")")
          .hasMessageContaining("Point the store's data source at the Citus coordinator");
      assertThatThrownBy(store::databaseTime).hasMessageContaining("not the coordinator");
      assertThatThrownBy(() -> store.admin().sweep(LeaseStore.MAX_TTL, "ops"))
          .hasMessageContaining("not the coordinator");
    }
    assertThat(
            coordinator.queryOne(
                "SELECT count(*) FROM leasehold_lease WHERE account_id = 'worker-account'",
                Long.class))
        .isZero();
    try (LeaseStore store =
        LeaseStore.builder(db.dataSource()).accessPolicy(AccessPolicy.allowAll()).build()) {
      assertThat(store.databaseTime()).isNotNull();
      AcquireResult granted = store.tryAcquire(key, "worker-account");
      assertThat(granted).isInstanceOf(AcquireResult.Acquired.class);
      // From the coordinator's series, far below the first worker's range.
      assertThat(((AcquireResult.Acquired) granted).lease().fence()).isLessThan(1L << 48);
    }
  }
}
