package io.leasehold.lease.admin;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.lease.AccessPolicy;
import io.leasehold.lease.FailoverSafety;
import io.leasehold.lease.LeaseStore;
import io.leasehold.lease.StoreInternals;
import io.leasehold.lease.support.LeaseDatabase;
import io.leasehold.testing.TestDatabaseExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The failover safety report: each unsafe setting is named with its repair. (A real synchronous and
 * asynchronous Patroni cluster is judged by the reliability module's FailoverSmokeTest.)
 */
class FailoverSafetyTest {
  @RegisterExtension static final TestDatabaseExtension db = LeaseDatabase.extension();

  @Test
  void theTestDatabaseRunsWithoutFsyncAndIsReportedUnsafe() {
    try (LeaseStore store =
        LeaseStore.builder(db.dataSource()).accessPolicy(AccessPolicy.allowAll()).build()) {
      FailoverSafety s = store.admin().failoverSafety();
      assertThat(s.fsync()).isFalse();
      assertThat(s.standbys()).isZero();
      assertThat(s.inRecovery()).isFalse();
      assertThat(s.isSafe()).isFalse();
      assertThat(s.warnings())
          .singleElement()
          .asString()
          .contains("fsync is off")
          .contains("fsync = on");
    }
  }

  @Test
  void aLonePrimaryWithFsyncIsSafe() {
    FailoverSafety s = StoreInternals.judgeFailoverSafety("on", "", 0, 0, false);
    assertThat(s.isSafe()).isTrue();
  }

  @Test
  void asynchronousStandbysAreUnsafe() {
    FailoverSafety s = StoreInternals.judgeFailoverSafety("on", "", 2, 0, false);
    assertThat(s.warnings())
        .singleElement()
        .asString()
        .contains("all asynchronous")
        .contains("synchronous_mode");
  }

  @Test
  void aSynchronousStandbyWithSynchronousCommitIsSafe() {
    assertThat(StoreInternals.judgeFailoverSafety("on", "\"node2\"", 2, 1, false).isSafe())
        .isTrue();
    assertThat(
            StoreInternals.judgeFailoverSafety("remote_apply", "ANY 1 (a, b)", 2, 2, false)
                .isSafe())
        .isTrue();
  }

  @Test
  void commitsThatDoNotWaitForTheStandbyAreUnsafe() {
    assertThat(StoreInternals.judgeFailoverSafety("local", "\"node2\"", 2, 1, false).warnings())
        .singleElement()
        .asString()
        .contains("synchronous_commit is local");
    assertThat(
            StoreInternals.judgeFailoverSafety("remote_write", "\"node2\"", 2, 1, false).isSafe())
        .isFalse();
  }

  @Test
  void noSynchronousStandbyNowIsReported() {
    assertThat(StoreInternals.judgeFailoverSafety("on", "\"node2\"", 1, 0, false).warnings())
        .singleElement()
        .asString()
        .contains("no standby is synchronous now");
  }

  @Test
  void whatTheUserCannotSeeIsNotCalledSafe() {
    assertThat(StoreInternals.judgeFailoverSafety("on", "\"node2\"", 2, -1, false).warnings())
        .singleElement()
        .asString()
        .contains("pg_monitor");
  }

  @Test
  void aStandbyIsNoPlaceForTheStore() {
    assertThat(StoreInternals.judgeFailoverSafety("on", "", 0, 0, true).warnings())
        .singleElement()
        .asString()
        .contains("targetServerType=primary");
  }
}
