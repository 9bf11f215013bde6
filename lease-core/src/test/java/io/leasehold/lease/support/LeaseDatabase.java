package io.leasehold.lease.support;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.fencing.LeaseKey;
import io.leasehold.lease.AccessPolicy;
import io.leasehold.lease.Lease;
import io.leasehold.lease.LeaseSchema;
import io.leasehold.lease.LeaseStore;
import io.leasehold.testing.TestDatabase;
import io.leasehold.testing.TestDatabaseExtension;
import io.leasehold.testkit.ChildJvm;
import java.io.IOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
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

  /**
   * Moves a row's end (and start) back in time, as if the lease had ended {@code days} ago (a sweep
   * of rows dead for less takes it). The times are the statement's own (statement_timestamp() with
   * no column in the expression, which Citus evaluates once on the coordinator); whether it was
   * released picks the statement, since Citus refuses a CASE around a time function in an UPDATE.
   */
  public static void endedDaysAgo(
      TestDatabaseExtension db, LeaseKey key, int days, boolean released) throws SQLException {
    String releasedAt = released ? "statement_timestamp() - ? * interval '1 day'" : "NULL";
    try (Connection c = db.database().newConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "UPDATE leasehold_lease SET acquired_at = statement_timestamp() - ? * interval '1 day' - interval '1 min',"
                    + " renewed_at = statement_timestamp() - ? * interval '1 day' - interval '1 min',"
                    + " expires_at = statement_timestamp() - ? * interval '1 day',"
                    + " released_at = "
                    + releasedAt
                    + " WHERE account_id = ? AND session_id = ?")) {
      int p = 1;
      ps.setInt(p++, days);
      ps.setInt(p++, days);
      ps.setInt(p++, days);
      if (released) {
        ps.setInt(p++, days);
      }
      ps.setString(p++, key.accountId());
      ps.setString(p, key.sessionId());
      assertThat(ps.executeUpdate()).isEqualTo(1);
    }
  }

  /**
   * Gives {@code key} {@code leases} leases one after the other, each released, then ends them
   * three days back and sweeps the key's row away as the administrator "ops" (the store's policy
   * must let it sweep): a key whose fences the table no longer shows.
   *
   * @return the last fence the key had
   */
  public static long sweptAfterLeases(
      TestDatabaseExtension db, LeaseStore store, LeaseKey key, int leases) throws SQLException {
    long last = 0;
    for (int i = 0; i < leases; i++) {
      Lease lease = store.tryAcquire(key, key.accountId()).acquiredLease().orElseThrow();
      last = lease.fence();
      lease.release();
    }
    endedDaysAgo(db, key, 3, true);
    assertThat(store.admin().sweep(Duration.ofDays(2), "ops")).isEqualTo(1);
    return last;
  }

  /** A store on the class database with {@code policy} and {@code ttl}, otherwise as built. */
  public static LeaseStore store(TestDatabaseExtension db, AccessPolicy policy, Duration ttl) {
    return LeaseStore.builder(db.dataSource()).accessPolicy(policy).ttl(ttl).build();
  }

  public static TestDatabaseExtension extension() {
    return TestDatabaseExtension.withTemplate("lease", ds -> LeaseSchema.defaults().apply(ds));
  }
}
