package io.leasehold.lease.acquire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.leasehold.fencing.LeaseKey;
import io.leasehold.lease.AccessPolicy;
import io.leasehold.lease.AcquireRequest;
import io.leasehold.lease.AcquireResult;
import io.leasehold.lease.Lease;
import io.leasehold.lease.LeaseOwner;
import io.leasehold.lease.LeaseStore;
import io.leasehold.lease.support.LeaseDatabase;
import io.leasehold.testing.TestDatabaseExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The helpers that read an answer without an instanceof chain, and keepAlive's rules. */
class AcquireResultTest {
  @RegisterExtension static final TestDatabaseExtension db = LeaseDatabase.extension();

  private static String describe(AcquireResult r) {
    return r.match(
        lease -> "running with fence " + lease.fence(),
        status -> "busy: " + status.owner().map(LeaseOwner::holder).orElse("someone"),
        tooLate -> "too late");
  }

  @Test
  void eachOutcomeReadsAsAValue() {
    LeaseKey key = LeaseKey.of("acct", "match");
    try (LeaseStore store =
        LeaseStore.builder(db.dataSource()).accessPolicy(AccessPolicy.allowAll()).build()) {
      AcquireResult first = store.tryAcquire(AcquireRequest.of(key, "acct").withHolder("desktop"));
      Lease lease = first.acquiredLease().orElseThrow();
      assertThat(describe(first)).isEqualTo("running with fence " + lease.fence());
      assertThat(first.busyStatus()).isEmpty();

      AcquireResult second = store.tryAcquire(key, "acct");
      assertThat(describe(second)).isEqualTo("busy: desktop");
      assertThat(second.acquiredLease()).isEmpty();
      assertThat(second.busyStatus().orElseThrow().owner().orElseThrow().fence())
          .isEqualTo(lease.fence());

      AcquireResult late = new AcquireResult.TooLate(lease.token(), java.util.Optional.empty());
      assertThat(describe(late)).isEqualTo("too late");
    }
  }

  @Test
  void keepAliveTwiceIsOneKeepAndAfterReleaseAnError() {
    LeaseKey key = LeaseKey.of("acct", "keep-twice");
    try (LeaseStore store =
        LeaseStore.builder(db.dataSource()).accessPolicy(AccessPolicy.allowAll()).build()) {
      Lease lease = store.tryAcquire(key, "acct").acquiredLease().orElseThrow();
      assertThat(lease.keepAlive().keepAlive()).isSameAs(lease);
      assertThat(store.keptLeaseCount()).isEqualTo(1);
      lease.release();
      assertThat(store.keptLeaseCount()).isZero();
      assertThatThrownBy(lease::keepAlive)
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("was released")
          .hasMessageContaining("acquire a new lease");
      assertThat(store.keptLeaseCount()).isZero();
    }
  }
}
