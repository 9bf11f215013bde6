package io.leasehold.reliability;

import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.lease.AccessPolicy;
import io.leasehold.lease.AcquireResult;
import io.leasehold.lease.Lease;
import io.leasehold.lease.LeaseStore;
import io.leasehold.lease.ReleaseResult;
import io.leasehold.lease.RenewResult;
import java.time.Duration;
import javax.sql.DataSource;

/** The lease store under test. */
final class RealClient implements LeaseClient {
  private final LeaseStore store;

  RealClient(DataSource ds, Duration ttl) {
    this.store =
        LeaseStore.builder(ds)
            .accessPolicy(AccessPolicy.allowAll())
            .ttl(ttl)
            .lockTimeout(Duration.ofMillis(200))
            .statementTimeout(Duration.ofMillis(400))
            .build();
  }

  @Override
  public Held acquire(LeaseKey key) {
    AcquireResult r = store.tryAcquire(key, key.accountId());
    return r instanceof AcquireResult.Acquired a ? new RealHeld(a.lease()) : null;
  }

  @Override
  public void close() {
    store.close();
  }

  private record RealHeld(Lease lease) implements Held {
    @Override
    public FencingToken token() {
      return lease.token();
    }

    @Override
    public Grant grant() {
      return new Grant(lease.identity(), lease.acquiredAt(), lease.expiresAt());
    }

    @Override
    public Answer renew() {
      RenewResult r = lease.renew();
      return new Answer(r.renewed(), r.expiresAt().orElse(null), r.databaseNow().orElse(null));
    }

    @Override
    public Answer release() {
      ReleaseResult r = lease.release();
      return new Answer(r.released(), null, r.databaseNow().orElse(null));
    }

    @Override
    public boolean isLost() {
      return lease.isLost();
    }
  }
}
