package io.leasehold.lease.support;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.fencing.LeaseKey;
import io.leasehold.lease.LeaseSchema;
import io.leasehold.testing.TestDatabaseExtension;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.concurrent.TimeUnit;

/** Waits on what PostgreSQL reports, instead of sleeping and hoping a statement got there. */
public final class LockWaits {
  private LockWaits() {}

  /** The backend id of a connection. */
  public static int pid(Connection c) throws Exception {
    try (PreparedStatement ps = c.prepareStatement("SELECT pg_backend_pid()");
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      return rs.getInt(1);
    }
  }

  /** Returns once some backend waits for a lock that the backend {@code pid} holds. */
  public static void awaitABackendBlockedBy(TestDatabaseExtension db, int pid, String what)
      throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
    try (Connection c = db.database().newConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT count(*) FROM pg_stat_activity WHERE ? = ANY (pg_blocking_pids(pid))")) {
      ps.setInt(1, pid);
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

  /** Opens a transaction that holds the key's row lock, as a contender in mid-acquire would. */
  public static Connection lockRow(TestDatabaseExtension db, LeaseKey key) throws Exception {
    Connection c = db.database().newConnection();
    c.setAutoCommit(false);
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT 1 FROM "
                + LeaseSchema.defaults().table()
                + " WHERE account_id = ? AND session_id = ? FOR UPDATE")) {
      ps.setString(1, key.accountId());
      ps.setString(2, key.sessionId());
      ps.executeQuery().close();
    }
    return c;
  }
}
