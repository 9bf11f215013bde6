package io.leasehold.lease.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.leasehold.fencing.LeaseKey;
import io.leasehold.lease.AccessPolicy;
import io.leasehold.lease.AcquireResult;
import io.leasehold.lease.LeaseStore;
import io.leasehold.lease.LeaseStoreException;
import io.leasehold.lease.support.LeaseDatabase;
import io.leasehold.testing.TestDatabaseExtension;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A store pointed at a Citus worker instead of the coordinator is refused (CONTRACT C3): it drew
 * fences from the worker's own range of the sequence. On plain PostgreSQL, a table standing in for
 * Citus's {@code pg_dist_local_group} (a worker's node group is not 0) shows the check; {@code
 * citus.CitusWorkerStoreTest} makes the same check against a real worker.
 */
class CitusWorkerRefusalTest {
  @RegisterExtension static final TestDatabaseExtension db = LeaseDatabase.extension();

  @Test
  void aStoreOnANodeOtherThanTheCoordinatorRefusesAndSaysWhereToPointIt() {
    Assumptions.assumeTrue(
        db.database()
            .queryOne(
                "SELECT to_regclass('pg_catalog.pg_dist_local_group') IS NULL", Boolean.class),
        "plain PostgreSQL only: a Citus node has the real catalog");
    db.database().execute("CREATE TABLE public.pg_dist_local_group (groupid integer NOT NULL)");
    db.database().execute("INSERT INTO public.pg_dist_local_group VALUES (1)");
    LeaseKey key = LeaseKey.of("acct", "on-a-worker");
    try (LeaseStore store =
        LeaseStore.builder(db.dataSource())
            .accessPolicy(AccessPolicy.allowAll().withAdministrators(java.util.Set.of("ops")))
            .build()) {
      assertThatThrownBy(() -> store.tryAcquire(key, "acct"))
          .isInstanceOf(LeaseStoreException.class)
          .hasMessageContaining("is a Citus worker (node group 1), not the coordinator")
          .hasMessageContaining("Point the store's data source at the Citus coordinator");
      assertThatThrownBy(store::databaseTime).hasMessageContaining("not the coordinator");
      // Its sweep too: it judged rows by the worker's copy of the sequence.
      assertThatThrownBy(() -> store.admin().sweep(LeaseStore.MAX_TTL, "ops"))
          .hasMessageContaining("not the coordinator");
      assertThat(
              db.database()
                  .queryOne(
                      "SELECT count(*) FROM leasehold_lease WHERE session_id = 'on-a-worker'",
                      Long.class))
          .isZero();

      // Group 0 is the coordinator (or a node of its own): the same store grants.
      db.database().execute("UPDATE public.pg_dist_local_group SET groupid = 0");
      assertThat(store.tryAcquire(key, "acct")).isInstanceOf(AcquireResult.Acquired.class);
    } finally {
      db.database().execute("DROP TABLE IF EXISTS public.pg_dist_local_group");
    }
  }
}
