package io.leasehold.lease.release;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.lease.AccessPolicy;
import io.leasehold.lease.AcquireResult;
import io.leasehold.lease.Lease;
import io.leasehold.lease.LeaseStore;
import io.leasehold.lease.support.LeaseDatabase;
import io.leasehold.testing.TestDatabaseExtension;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 30: a release commits without waiting for its WAL flush (it only shortens a lease, so
 * losing it in a crash costs availability, never safety), while an acquire, a renewal and a release
 * that holds the key until an instant stay durable. Whether a commit waited for its flush shows in
 * the server's WAL positions right after it returns: a durable commit has flushed everything
 * inserted before it, an asynchronous one leaves its record for the WAL writer, which runs every
 * 200 ms. (The test server commits asynchronously by default, for speed; this class's database
 * commits durably, as users run it.)
 */
class AsynchronousReleaseTest {
  @RegisterExtension static final TestDatabaseExtension db = LeaseDatabase.extension();

  private static final int LEASES = 20;
  private static HikariDataSource durable;

  @BeforeAll
  static void commitDurably() {
    db.database()
        .execute("ALTER DATABASE " + db.database().name() + " SET synchronous_commit = on");
    durable = db.database().newPool(4);
  }

  @AfterAll
  static void closePool() {
    durable.close();
  }

  private static LeaseStore store() {
    return LeaseStore.builder(durable)
        .accessPolicy(AccessPolicy.allowAll())
        .ttl(Duration.ofSeconds(30))
        .build();
  }

  private static List<Lease> acquire(LeaseStore store, int n) {
    List<Lease> leases = new ArrayList<>();
    String session = "async-" + UUID.randomUUID();
    for (int i = 0; i < n; i++) {
      leases.add(
          ((AcquireResult.Acquired)
                  store.tryAcquire(LeaseKey.of("acct", session + "-" + i), "acct"))
              .lease());
    }
    return leases;
  }

  /** Whether WAL inserted so far is not yet flushed, read on a connection of its own. */
  private static boolean unflushed(Connection c) throws SQLException {
    return query(c, "SELECT pg_current_wal_flush_lsn() < pg_current_wal_insert_lsn()").equals("t");
  }

  /** Where the next WAL record will go. */
  private static String insertPosition(Connection c) throws SQLException {
    return query(c, "SELECT pg_current_wal_insert_lsn()");
  }

  /**
   * Whether WAL is flushed beyond {@code position}. Other databases' activity can only move the
   * flush forward, so a durable commit inserted after {@code position} always makes this true.
   */
  private static boolean flushedPast(Connection c, String position) throws SQLException {
    return query(c, "SELECT pg_current_wal_flush_lsn() > '" + position + "'::pg_lsn").equals("t");
  }

  private static String query(Connection c, String sql) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getString(1);
    }
  }

  @Test
  void aReleaseCommitsWithoutWaitingForItsFlush() throws Exception {
    try (LeaseStore store = store();
        Connection c = durable.getConnection()) {
      List<Lease> leases = acquire(store, LEASES);
      int unflushed = 0;
      for (Lease lease : leases) {
        assertThat(lease.release().released()).isTrue();
        unflushed += unflushed(c) ? 1 : 0;
      }
      // The WAL writer may run once or twice during the loop; a durable release leaves none.
      assertThat(unflushed)
          .as("releases whose commit was still unflushed when they returned")
          .isGreaterThan(LEASES / 2);
    }
  }

  @Test
  void anAcquireAfterAnUnflushedReleaseFlushesTheReleaseWithIt() throws Exception {
    try (LeaseStore store = store();
        Connection c = durable.getConnection()) {
      for (Lease lease : acquire(store, LEASES)) {
        assertThat(lease.release().released()).isTrue();
        String afterRelease = insertPosition(c);
        // The key's next fence commits durably, and with it every WAL record before it, the
        // release included: no durable grant rests on a release a crash could lose.
        Lease next = ((AcquireResult.Acquired) store.tryAcquire(lease.key(), "acct")).lease();
        assertThat(flushedPast(c, afterRelease))
            .as("the release's WAL flushed by the acquire after it")
            .isTrue();
        assertThat(next.token().fence()).isGreaterThan(lease.identity().fence());
      }
    }
  }

  @Test
  void aReleaseHoldingTheKeyWaitsForItsFlush() throws Exception {
    try (LeaseStore store = store();
        Connection c = durable.getConnection()) {
      for (Lease lease : acquire(store, LEASES)) {
        String before = insertPosition(c);
        assertThat(lease.releaseHolding(Instant.now().plusSeconds(1)).released()).isTrue();
        // Losing a hold would end it at the lease's earlier expiry: it is flushed like an acquire.
        assertThat(flushedPast(c, before))
            .as("a holding release's commit flushed when it returned")
            .isTrue();
      }
    }
  }
}
