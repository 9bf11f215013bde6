package io.leasehold.lease.schema;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.fencing.LeaseKey;
import io.leasehold.lease.AccessPolicy;
import io.leasehold.lease.AcquireResult;
import io.leasehold.lease.LeaseStore;
import io.leasehold.lease.support.LeaseDatabase;
import io.leasehold.testing.TestDatabaseExtension;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A store pointed at a Citus worker instead of the coordinator is refused (CONTRACT C3): it drew
 * fences from the worker's own range of the sequence. The check reads Citus's own catalog, {@code
 * pg_catalog.pg_dist_local_group}, and only that: a table of the same name planted in a schema of
 * the search path (which could otherwise make a worker pass for the coordinator) changes nothing.
 * {@code citus.CitusWorkerStoreTest} makes the refusal itself against a real worker.
 */
class CitusWorkerRefusalTest {
  @RegisterExtension static final TestDatabaseExtension db = LeaseDatabase.extension();

  @Test
  void aPlantedNodeGroupTableInTheSearchPathIsNotTakenForCitusCatalog() {
    Assumptions.assumeTrue(
        db.database()
            .queryOne(
                "SELECT to_regclass('pg_catalog.pg_dist_local_group') IS NULL", Boolean.class),
        "plain PostgreSQL only: a Citus node has the real catalog");
    // A worker's group: the old check, reading the name unqualified, refused this store.
    db.database().execute("CREATE TABLE public.pg_dist_local_group (groupid integer NOT NULL)");
    db.database().execute("INSERT INTO public.pg_dist_local_group VALUES (1)");
    LeaseKey key = LeaseKey.of("acct", "planted-group");
    try (LeaseStore store =
        LeaseStore.builder(db.dataSource())
            .accessPolicy(AccessPolicy.allowAll().withAdministrators(java.util.Set.of("ops")))
            .build()) {
      assertThat(store.tryAcquire(key, "acct")).isInstanceOf(AcquireResult.Acquired.class);
      assertThat(store.databaseTime()).isNotNull();
      assertThat(store.admin().sweep(LeaseStore.MAX_TTL, "ops")).isNotNegative();
      assertThat(
              db.database()
                  .queryOne(
                      "SELECT count(*) FROM leasehold_lease WHERE session_id = 'planted-group'",
                      Long.class))
          .isOne();
    } finally {
      db.database().execute("DROP TABLE IF EXISTS public.pg_dist_local_group");
    }
  }
}
