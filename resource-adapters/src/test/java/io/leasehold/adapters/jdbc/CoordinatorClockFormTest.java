package io.leasehold.adapters.jdbc;

import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.lease.AcquireResult;
import io.leasehold.lease.LeaseStore;
import io.leasehold.testing.TestDatabaseExtension;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The guards' expiry decisions in both forms, proven on plain PostgreSQL in CI: the form every
 * database gets, and the writer's Citus form (no admission-at-commit pipeline; the expiry checked
 * again before the commit by a clock read in a statement of its own, which Citus runs on the
 * coordinator). Both admit a live lease's token and refuse it once the lease expired. That the
 * Citus form decides by the coordinator's clock needs a worker with another clock: {@code
 * WorkerClockSkewTest}.
 */
class CoordinatorClockFormTest {
  @RegisterExtension static final TestDatabaseExtension db = JdbcTestSchema.extension();

  @ParameterizedTest(name = "Citus form: {0}")
  @ValueSource(booleans = {false, true})
  void everyGuardAdmitsALiveLeaseAndRefusesAnExpiredOne(boolean citusForm) throws Exception {
    LeaseKey key = LeaseKey.of("acct", "coordinator-clock-" + citusForm);
    try (LeaseStore store = JdbcTestSchema.leaseStore(db.dataSource())) {
      FencingToken token = ((AcquireResult.Acquired) store.tryAcquire(key, "acct")).lease().token();
      ExpiryDecisions.allAdmit(db.dataSource(), token, citusForm);
      db.database()
          .execute(
              "UPDATE leasehold_lease SET expires_at = statement_timestamp() - interval '1 ms'"
                  + " WHERE session_id = '"
                  + key.sessionId()
                  + "'");
      ExpiryDecisions.allRefuse(db.dataSource(), token, citusForm);
    }
  }
}
