package io.leasehold.lease.support;

import io.leasehold.fencing.LeaseKey;
import io.leasehold.lease.AccessPolicy;
import io.leasehold.lease.LeaseSchema;
import io.leasehold.lease.LeaseStore;
import io.leasehold.testing.TestDatabase;
import io.leasehold.testing.TestDatabaseExtension;
import io.leasehold.testkit.ChildJvm;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** The test database every lease-core test class uses: a copy of a template with the schema. */
public final class LeaseDatabase {
  private LeaseDatabase() {}

  /**
   * A child JVM running {@code main} with the class database's URL, user and password and the key's
   * account and session as its first five arguments, then {@code more}.
   */
  public static ChildJvm child(
      TestDatabaseExtension db, Class<?> main, LeaseKey key, String... more) throws IOException {
    TestDatabase d = db.database();
    List<String> args =
        new ArrayList<>(
            List.of(
                d.jdbcUrl(),
                d.server().user(),
                d.server().password(),
                key.accountId(),
                key.sessionId()));
    args.addAll(List.of(more));
    return ChildJvm.start(main, args.toArray(String[]::new));
  }

  /** A store on the class database with {@code policy} and {@code ttl}, otherwise as built. */
  public static LeaseStore store(TestDatabaseExtension db, AccessPolicy policy, Duration ttl) {
    return LeaseStore.builder(db.dataSource()).accessPolicy(policy).ttl(ttl).build();
  }

  public static TestDatabaseExtension extension() {
    return TestDatabaseExtension.withTemplate("lease", ds -> LeaseSchema.defaults().apply(ds));
  }
}
