package example;

import io.leasehold.devdb.LocalPostgres;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.lease.AccessPolicy;
import io.leasehold.lease.Lease;
import io.leasehold.lease.LeaseSchema;
import io.leasehold.lease.LeaseStore;
import io.leasehold.micrometer.LeaseholdMetrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.sql.Connection;
import java.sql.Statement;

/** A user's first program: a local PostgreSQL, the schema, a lease, and the answer printed. */
public final class Main {
  private Main() {}

  public static void main(String[] args) throws Exception {
    try (LocalPostgres pg = LocalPostgres.start()) {
      // On the module path, the schema as plain SQL: Liquibase 4 is an automatic module whose own
      // dependencies a modular application would have to add by hand.
      String version;
      try (Connection c = pg.dataSource().getConnection();
          Statement s = c.createStatement()) {
        s.execute(LeaseSchema.defaults().sqlScript());
        version = c.getMetaData().getDatabaseProductVersion();
      }
      SimpleMeterRegistry registry = new SimpleMeterRegistry();
      try (LeaseStore store = LeaseStore.builder(pg.dataSource()).accessPolicy(AccessPolicy.allowAll()).build();
          AutoCloseable metrics = LeaseholdMetrics.bind(store, registry)) {
        Lease lease = store.tryAcquire(LeaseKey.of("acct-7", "chat-1"), "acct-7").acquiredLease().orElseThrow();
        long acquired = registry.get("leasehold.acquire").tag("outcome", "acquired").timer().count();
        System.out.println("MODULAR CONSUMER OK: fence " + lease.fence() + " on PostgreSQL " + version
            + ", acquires metered " + acquired);
        lease.release();
      }
    }
  }
}
