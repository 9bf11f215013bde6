package example;

import io.leasehold.devdb.LocalPostgres;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.lease.AccessPolicy;
import io.leasehold.lease.Lease;
import io.leasehold.lease.LeaseSchema;
import io.leasehold.lease.LeaseStore;
import java.sql.Connection;

/** A user's first program: a local PostgreSQL, the schema, a lease, and the answer printed. */
public final class Main {
  private Main() {}

  public static void main(String[] args) throws Exception {
    try (LocalPostgres pg = LocalPostgres.start()) {
      LeaseSchema.defaults().apply(pg.dataSource());
      String version;
      try (Connection c = pg.dataSource().getConnection()) {
        version = c.getMetaData().getDatabaseProductVersion();
      }
      try (LeaseStore store = LeaseStore.builder(pg.dataSource()).accessPolicy(AccessPolicy.allowAll()).build()) {
        Lease lease = store.tryAcquire(LeaseKey.of("acct-7", "chat-1"), "acct-7").acquiredLease().orElseThrow();
        System.out.println("CONSUMER OK: fence " + lease.fence() + " on PostgreSQL " + version);
        lease.release();
      }
    }
  }
}
