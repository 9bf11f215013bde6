package io.leasehold.examples;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.lease.AccessPolicy;
import io.leasehold.lease.AcquireResult;
import io.leasehold.lease.LeaseStore;
import io.leasehold.testing.TestDatabase;
import io.leasehold.testing.TestDatabaseExtension;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** The README's samples run, not only compile. */
class QuickStartTest {
  @RegisterExtension static final TestDatabaseExtension db = TestDatabaseExtension.empty();
  @TempDir Path dir;

  @Test
  void aLocalPostgresServesTheStoreAndStops() {
    assertThat(QuickStart.onALocalPostgres()).isEqualTo(1);
  }

  @Test
  void quickStartRunsOnRealPostgres() throws Exception {
    TestDatabase d = db.database();
    QuickStart.run(d.jdbcUrl(), d.server().user(), d.server().password());
    try (LeaseStore store =
        LeaseStore.builder(d.dataSource()).accessPolicy(AccessPolicy.callerOwnsAccount()).build()) {
      assertThat(QuickStart.runExclusive(store)).startsWith("generated with fence ");
      assertThat(QuickStart.fencedWrite(store, dir.resolve("files"))).isTrue();
      assertThat(QuickStart.waitForTheSession(store)).isPositive();
      AcquireResult later =
          QuickStart.waitAsync(store, Runnable::run).get(30, java.util.concurrent.TimeUnit.SECONDS);
      assertThat(later)
          .isInstanceOfSatisfying(AcquireResult.Acquired.class, a -> a.lease().release());
      assertThat(
              store.status(io.leasehold.fencing.LeaseKey.of("acct-7", "chat-1"), "acct-7").isHeld())
          .isFalse();
    }
  }

  @Test
  void aStoreOnItsOwnPoolAcquires() {
    TestDatabase d = db.database();
    assertThat(QuickStart.onItsOwnPool(d.jdbcUrl(), d.server().user(), d.server().password()))
        .isPositive();
  }
}
