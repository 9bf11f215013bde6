package io.leasehold.lease.support;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.fencing.LeaseKey;
import io.leasehold.lease.LeaseSchema;
import io.leasehold.testing.RowLocks;
import io.leasehold.testing.TestBudgets;
import io.leasehold.testing.TestDatabaseExtension;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.concurrent.TimeUnit;

/** Waits on what PostgreSQL reports, instead of sleeping and hoping a statement got there. */
public final class LockWaits {
  private LockWaits() {}

  /**
   * The id {@link #awaitABackendBlockedBy} knows a lock holder by: its backend id on one
   * PostgreSQL; on Citus its global process id, which names the coordinator's backend in the row
   * locks its distributed transaction holds on the workers.
   */
  public static long lockHolderId(Connection c) throws Exception {
    String sql = TestBudgets.onCitus() ? "SELECT citus_backend_gpid()" : "SELECT pg_backend_pid()";
    try (PreparedStatement ps = c.prepareStatement(sql);
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      return rs.getLong(1);
    }
  }

  /**
   * Returns once some backend waits for a lock that the holder {@code holder} ({@link
   * #lockHolderId}) has. On Citus a row lock is waited for on the worker that holds the key's
   * shard, where the coordinator's {@code pg_blocking_pids} does not look: there the cluster-wide
   * {@code citus_lock_waits} answers.
   */
  public static void awaitABackendBlockedBy(TestDatabaseExtension db, long holder, String what)
      throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
    String sql =
        TestBudgets.onCitus()
            ? "SELECT count(*) FROM citus_lock_waits WHERE blocking_gpid = ?"
            : "SELECT count(*) FROM pg_stat_activity WHERE ?::int = ANY (pg_blocking_pids(pid))";
    try (Connection c = db.database().newConnection();
        PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setLong(1, holder);
      while (true) {
        try (ResultSet rs = ps.executeQuery()) {
          rs.next();
          if (rs.getInt(1) > 0) {
            return;
          }
        }
        assertThat(System.nanoTime())
            .as("%s never waited for the row lock", what)
            .isLessThan(deadline);
        Thread.sleep(10);
      }
    }
  }

  /**
   * Opens a transaction that holds the key's row lock, as a contender in mid-acquire (or a renewal
   * in flight) would. The lock names the key with its account, the distribution column: Citus
   * refuses {@code FOR UPDATE} across shards.
   *
   * @throws IllegalStateException if the key has no row (the test would prove nothing)
   */
  public static Connection lockRow(TestDatabaseExtension db, LeaseKey key) throws Exception {
    return RowLocks.hold(
        db.database().newConnection(),
        "SELECT 1 FROM "
            + LeaseSchema.defaults().table()
            + " WHERE account_id = ? AND session_id = ? FOR UPDATE",
        key.accountId(),
        key.sessionId());
  }
}
