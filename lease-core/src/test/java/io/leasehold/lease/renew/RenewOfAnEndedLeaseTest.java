package io.leasehold.lease.renew;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.fencing.LeaseKey;
import io.leasehold.lease.AccessPolicy;
import io.leasehold.lease.AcquireResult;
import io.leasehold.lease.Lease;
import io.leasehold.lease.LeaseStore;
import io.leasehold.lease.RenewResult;
import io.leasehold.lease.support.LeaseDatabase;
import io.leasehold.lease.support.OperationPolicy;
import io.leasehold.testing.TestDataSources;
import io.leasehold.testing.TestDatabaseExtension;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 31, item 7: {@code renew()} on a lease already known lost or released went to the database
 * to read its clock, although the answer was known: a round trip per call, and an exception instead
 * of an answer when the database was down. It now answers locally.
 */
class RenewOfAnEndedLeaseTest {
  @RegisterExtension static final TestDatabaseExtension db = LeaseDatabase.extension();

  @Test
  void aReleasedLeaseIsAnsweredWithoutARoundTrip() {
    AtomicInteger connections = new AtomicInteger();
    try (LeaseStore store =
        LeaseStore.builder(TestDataSources.counting(db.dataSource(), connections))
            .accessPolicy(AccessPolicy.allowAll())
            .build()) {
      Lease lease =
          ((AcquireResult.Acquired) store.tryAcquire(LeaseKey.of("acct", "released"), "acct"))
              .lease();
      assertThat(lease.renew().renewed()).isTrue();
      lease.release();
      int before = connections.get();
      RenewResult r = lease.renew();
      assertThat(r.renewed()).isFalse();
      assertThat(r.expiresAt()).isEmpty();
      assertThat(r.databaseNow()).isEmpty();
      assertThat(connections.get()).isEqualTo(before);
    }
  }

  @Test
  void aLeaseTheAccessPolicyEndedIsAnsweredWithoutARoundTrip() {
    AtomicInteger connections = new AtomicInteger();
    AtomicBoolean mayRenew = new AtomicBoolean(true);
    AccessPolicy policy =
        new OperationPolicy(
            operation ->
                !operation.administrative()
                    && (operation != AccessPolicy.Operation.RENEW || mayRenew.get()));
    try (LeaseStore store =
        LeaseStore.builder(TestDataSources.counting(db.dataSource(), connections))
            .accessPolicy(policy)
            .build()) {
      Lease lease =
          ((AcquireResult.Acquired) store.tryAcquire(LeaseKey.of("acct", "revoked"), "acct"))
              .lease();
      mayRenew.set(false);
      int before = connections.get();
      assertThat(lease.renew().renewed()).isFalse();
      assertThat(lease.isLost()).isTrue();
      assertThat(lease.renew().databaseNow()).isEmpty();
      assertThat(connections.get()).isEqualTo(before);
    }
  }
}
