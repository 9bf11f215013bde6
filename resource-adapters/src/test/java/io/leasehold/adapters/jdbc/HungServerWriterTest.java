package io.leasehold.adapters.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.leasehold.adapters.ResourceAccessException;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.testing.StoppedBackend;
import io.leasehold.testing.TestDataSources;
import io.leasehold.testing.TestDatabaseExtension;
import java.sql.Connection;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * CONTRACT C21 with a server that does not answer: the writer's pooled backend is stopped
 * (SIGSTOP), so no server-side timeout can fire. The writer's bound, twice the lock timeout plus 1
 * s, ends the write with an error that names the wait. Before, the write waited until the backend
 * ran again and then committed (red team 48, P23 "warm-writer": 49.7 s, then "wrote").
 */
@Timeout(60)
class HungServerWriterTest {
  @RegisterExtension static final TestDatabaseExtension db = JdbcTestSchema.extension();

  /** Twice the lock timeout of 500 ms plus one second. */
  private static final long BOUND_MILLIS = 2_000;

  private static final long SLACK_MILLIS = 2_000;

  @Test
  void aWriteWhoseAdmissionGetsNoAnswerEndsInTimeAndCommitsNothing() throws Exception {
    LeaseKey key = LeaseKey.of("acct", "hung-admission");
    long pid;
    try (Connection backend = db.database().newConnection()) {
      FencedJdbcWriter writer = writer(TestDataSources.oneConnection(backend), false);
      writer.write(token(key, 1), (c, t) -> set(c, key, "one"));
      pid = StoppedBackend.pidOf(backend);
      Throwable thrown;
      long took;
      StoppedBackend stopped = StoppedBackend.stop(pid);
      try {
        long started = System.nanoTime();
        thrown = catchThrowable(() -> writer.write(token(key, 2), (c, t) -> set(c, key, "two")));
        took = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
      } finally {
        stopped.close();
      }
      assertThat(thrown)
          .isInstanceOf(ResourceAccessException.class)
          .hasMessageContaining("failed and was rolled back")
          .hasMessageContaining("no answer from the database within " + BOUND_MILLIS + " ms")
          .hasMessageContaining("nothing was committed");
      assertThat(took).isBetween(BOUND_MILLIS - 100, BOUND_MILLIS + SLACK_MILLIS);
    }
    // Once it runs again the backend finds its client gone and ends without a commit.
    ProcessHandle.of(pid).ifPresent(p -> p.onExit().orTimeout(20, TimeUnit.SECONDS).join());
    FencedJdbcWriter fresh = writer(db.dataSource(), false);
    assertThat(fresh.highWaterMark(key)).hasValue(1);
    assertThat(new RegisterHarness(db.dataSource()).value(key)).contains("one");
  }

  @Test
  void aCommitThatGetsNoAnswerIsReportedAsUnknown() throws Exception {
    LeaseKey key = LeaseKey.of("acct", "hung-commit");
    try (Connection backend = db.database().newConnection()) {
      // Admission at commit: the first statement the server gets is the admission with the COMMIT.
      FencedJdbcWriter writer = writer(TestDataSources.oneConnection(backend), true);
      writer.write(token(key, 1), (c, t) -> null);
      Throwable thrown;
      StoppedBackend stopped = StoppedBackend.stop(StoppedBackend.pidOf(backend));
      try {
        thrown = catchThrowable(() -> writer.write(token(key, 2), (c, t) -> null));
      } finally {
        stopped.close();
      }
      assertThat(thrown)
          .isInstanceOf(ResourceAccessException.class)
          .hasMessageContaining("failed at its COMMIT, outcome unknown")
          .hasMessageContaining("whether the transaction committed is unknown");
    }
  }

  private static FencedJdbcWriter writer(DataSource ds, boolean atCommit) {
    return JdbcTestSchema.trustingWriter(ds, atCommit).lockTimeout(Duration.ofMillis(500)).build();
  }

  private static Void set(Connection c, LeaseKey key, String value) throws java.sql.SQLException {
    RegisterHarness.setRegister(c, key, value);
    return null;
  }

  private static FencingToken token(LeaseKey key, long fence) {
    return new FencingToken(key, fence, UUID.randomUUID());
  }
}
