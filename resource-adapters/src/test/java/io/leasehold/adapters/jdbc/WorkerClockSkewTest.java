package io.leasehold.adapters.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.lease.AccessPolicy;
import io.leasehold.lease.AcquireRequest;
import io.leasehold.lease.AcquireResult;
import io.leasehold.lease.Lease;
import io.leasehold.lease.LeaseStore;
import io.leasehold.testing.CitusCoordinator;
import io.leasehold.testing.TestDatabase;
import io.leasehold.testing.TestEnvironment;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * CONTRACT C2 and C20 on a Citus cluster whose worker's clock is behind the coordinator's (red team
 * 48, P22): a lease expired by the coordinator's clock, on a key whose shard is on that worker, is
 * refused by every guard that decides by expiry, though the worker's clock still says it is live.
 * Needs a coordinator of its own, named by {@value #URL_ENV}, with a worker at least 10 s behind
 * (docs/testing.md: libfaketime); it resets that database. Skipped with one line without it.
 */
@Timeout(120)
class WorkerClockSkewTest {
  /** The JDBC URL (user postgres) of a coordinator with a worker whose clock is behind. */
  static final String URL_ENV = "LEASEHOLD_CITUS_SKEWED_URL";

  @Test
  void anExpiredLeaseIsRefusedThoughTheKeysWorkerClockSaysLive() throws Exception {
    String url =
        TestEnvironment.required(
            URL_ENV,
            "Citus clock-skew test skipped: set "
                + URL_ENV
                + "=jdbc:postgresql://host:port/database (a coordinator of its own with a worker at"
                + " least 10 s behind, see docs/testing.md)");
    DataSource ds = TestDatabase.connect(url, "postgres", "");
    CitusCoordinator.reset(ds);
    JdbcTestSchema.apply(ds);
    int behind = workerBehind(ds);
    String account = accountOn(ds, behind);
    LeaseKey key = LeaseKey.of(account, "skew");
    try (LeaseStore store = LeaseStore.builder(ds).accessPolicy(AccessPolicy.allowAll()).build()) {
      Lease lease =
          ((AcquireResult.Acquired)
                  store.tryAcquire(AcquireRequest.of(key, account).oneShot(Duration.ofSeconds(2))))
              .lease();
      FencingToken token = lease.token();
      ExpiryDecisions.allAdmit(ds, token, false);
      // The coordinator's clock passes the expiry (the worker's is still 10 s or more before it).
      long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
      while (!store.databaseTime().isAfter(lease.expiresAt())) {
        assertThat(System.nanoTime())
            .as("the coordinator's clock passes the expiry")
            .isLessThan(deadline);
        Thread.sleep(100);
      }
      assertThat(lease.renew().renewed())
          .as("the store (coordinator's clock) says expired")
          .isFalse();
      ExpiryDecisions.allRefuse(ds, token, false);
    }
  }

  /** The port of a worker whose clock is at least 10 s behind the coordinator's. */
  private static int workerBehind(DataSource ds) throws SQLException {
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT nodeport FROM run_command_on_workers("
                    + "$$SELECT extract(epoch FROM clock_timestamp())$$)"
                    + " WHERE success AND result::float8 < extract(epoch FROM clock_timestamp()) - 10"
                    + " ORDER BY nodeport LIMIT 1")) {
      assertThat(rs.next()).as(URL_ENV + " names a cluster with a worker 10 s behind").isTrue();
      return rs.getInt(1);
    }
  }

  /** An account whose lease row's shard is on the worker at {@code port}. */
  private static String accountOn(DataSource ds, int port) throws SQLException {
    try (Connection c = ds.getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT nodeport FROM citus_shards WHERE shardid ="
                    + " get_shard_id_for_distribution_column('leasehold_lease', ?)")) {
      for (int i = 0; i < 200; i++) {
        String account = "skew-" + i;
        ps.setString(1, account);
        try (ResultSet rs = ps.executeQuery()) {
          if (rs.next() && rs.getInt(1) == port) {
            return account;
          }
        }
      }
    }
    throw new AssertionError("no account of 200 has its shard on the worker at " + port);
  }
}
