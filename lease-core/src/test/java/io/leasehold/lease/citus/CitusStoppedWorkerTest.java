package io.leasehold.lease.citus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.leasehold.fencing.LeaseKey;
import io.leasehold.lease.AccessPolicy;
import io.leasehold.lease.LeaseSchema;
import io.leasehold.lease.LeaseStore;
import io.leasehold.lease.LeaseStoreException;
import io.leasehold.testing.CitusCoordinator;
import io.leasehold.testing.TestDatabaseExtension;
import java.io.IOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * CONTRACT C21 and C5 with a Citus worker that does not answer: every process of the worker that
 * holds the key's shard is stopped ({@code SIGSTOP}), so the coordinator's statement timeout fires,
 * the coordinator sends {@code 57014} and then waits for the worker to take its cancel, sending
 * nothing more. The client's bound counts silence, so the call ends at the statement timeout plus
 * the bound (over TLS, plus the bound once more: the JDK's close of a TLS socket reads for the
 * server's close alert under the same timeout), saying that no answer came and that the outcome is
 * unknown. Before, the message named only the statement timeout.
 *
 * <p>Runs on the coordinator named by {@code LEASEHOLD_CITUS_URL} when {@value #STOP_ENV} is set:
 * it stops a worker of that cluster, which must run on this machine as a user this test may signal,
 * for a few seconds (docs/scale-out.md). Skipped otherwise, with one line.
 */
@Timeout(120)
class CitusStoppedWorkerTest {
  @RegisterExtension
  static final TestDatabaseExtension db =
      TestDatabaseExtension.citus(ds -> LeaseSchema.defaults().apply(ds));

  /** Set (to anything) to let the test stop a worker of the cluster. */
  static final String STOP_ENV = "LEASEHOLD_CITUS_STOP_WORKER";

  private static final Duration STATEMENT = Duration.ofSeconds(1);

  /** Twice the statement timeout plus one second. */
  private static final long BOUND_MILLIS = 3_000;

  /** For a loaded build machine. */
  private static final long SLACK_MILLIS = 3_000;

  @Test
  void anAcquireBehindAStoppedWorkerEndsAtTheStatementTimeoutPlusTheBound() throws Exception {
    db.database(); // skipped without a coordinator first
    Assumptions.assumeTrue(
        System.getenv(STOP_ENV) != null,
        "Stopped-worker test skipped: set "
            + STOP_ENV
            + "=1 to let it stop a worker of the cluster of LEASEHOLD_CITUS_URL for a few seconds,"
            + " see docs/scale-out.md");
    String account = "stopped-worker";
    boolean tls;
    int workerPort;
    try (Connection c = db.database().newConnection();
        Statement s = c.createStatement()) {
      workerPort =
          intOf(
              s,
              "SELECT nodeport FROM pg_dist_shard_placement WHERE shardid ="
                  + " get_shard_id_for_distribution_column('leasehold_lease', '"
                  + account
                  + "')");
      tls = intOf(s, "SELECT count(*) FROM pg_stat_ssl WHERE pid = pg_backend_pid() AND ssl") > 0;
    }
    List<Long> worker = workerProcesses(workerPort);
    try (LeaseStore store =
        LeaseStore.builder(db.dataSource())
            .accessPolicy(AccessPolicy.allowAll())
            .ttl(Duration.ofSeconds(8))
            .lockTimeout(Duration.ofMillis(500))
            .statementTimeout(STATEMENT)
            .build()) {
      // One cycle first: later statements skip the store's first-time checks.
      store
          .tryAcquire(LeaseKey.of(account, "warm"), account)
          .acquiredLease()
          .orElseThrow()
          .release();
      long started;
      long tookMillis;
      signal("STOP", worker);
      try {
        started = System.nanoTime();
        assertThatThrownBy(() -> store.tryAcquire(LeaseKey.of(account, "s"), account))
            .isInstanceOf(LeaseStoreException.class)
            .hasMessageContaining("statement timeout")
            .hasMessageContaining("no answer from the database within " + BOUND_MILLIS + " ms")
            .hasMessageContaining("whether the statement committed is unknown");
        tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
      } finally {
        signal("CONT", worker);
      }
      long expected = STATEMENT.toMillis() + BOUND_MILLIS + (tls ? BOUND_MILLIS : 0);
      System.out.printf(
          "acquire behind a stopped worker (port %d, %s): %d ms, expected about %d ms%n",
          workerPort, tls ? "TLS" : "no TLS", tookMillis, expected);
      assertThat(tookMillis).isBetween(BOUND_MILLIS, expected + SLACK_MILLIS);
    }
  }

  private static int intOf(Statement s, String query) throws SQLException {
    try (ResultSet rs = s.executeQuery(query)) {
      rs.next();
      return rs.getInt(1);
    }
  }

  /** The worker's postmaster (the parent of a backend of it) and every process under it. */
  private static List<Long> workerProcesses(int port) throws SQLException {
    String url = System.getenv(CitusCoordinator.URL_ENV).replaceFirst(":\\d+/", ":" + port + "/");
    long backend;
    try (Connection w =
            DriverManager.getConnection(
                url,
                System.getenv(CitusCoordinator.USER_ENV),
                System.getenv(CitusCoordinator.PASSWORD_ENV));
        Statement s = w.createStatement()) {
      backend = intOf(s, "SELECT pg_backend_pid()");
    }
    ProcessHandle postmaster =
        ProcessHandle.of(backend)
            .flatMap(ProcessHandle::parent)
            .orElseThrow(() -> new IllegalStateException("worker on port " + port + " not local"));
    List<Long> pids = new ArrayList<>(List.of(postmaster.pid()));
    postmaster.descendants().forEach(p -> pids.add(p.pid()));
    return pids;
  }

  private static void signal(String signal, List<Long> pids) throws IOException {
    List<String> command = new ArrayList<>(List.of("kill", "-" + signal));
    pids.forEach(p -> command.add(Long.toString(p)));
    try {
      Process kill = new ProcessBuilder(command).inheritIO().start();
      if (kill.waitFor() != 0) {
        throw new IOException("kill -" + signal + " " + pids + " failed");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while signalling " + pids, e);
    }
  }
}
