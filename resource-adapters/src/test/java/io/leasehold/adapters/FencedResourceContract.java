package io.leasehold.adapters;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.leasehold.adapters.jdbc.LeaseTableVerifier;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.TokenVerificationException;
import io.leasehold.lease.AccessPolicy;
import io.leasehold.lease.Lease;
import io.leasehold.lease.LeaseSchema;
import io.leasehold.lease.LeaseStore;
import io.leasehold.testing.Sql;
import io.leasehold.testing.TestDatabaseExtension;
import io.leasehold.testkit.FenceGuardContract;
import io.leasehold.testkit.GuardHarness;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The published guard contract ({@code leasehold-guard-testkit}), plus what needs a lease database:
 * the online verification mode (CONTRACT C15). Each adapter's test class extends it.
 */
public abstract class FencedResourceContract extends FenceGuardContract {
  /** A lease database for the online verification mode (adapters may use their own instead). */
  @RegisterExtension
  static final TestDatabaseExtension leaseDb =
      TestDatabaseExtension.withTemplate("contract_lease", ds -> LeaseSchema.defaults().apply(ds));

  /** The lease database that {@link #onlineHarness()} verifies against. */
  protected DataSource leaseDatabase() {
    return leaseDb.dataSource();
  }

  /** A fresh adapter that verifies tokens online against {@link #leaseDatabase()}. */
  protected GuardHarness onlineHarness() {
    return harness(LeaseTableVerifier.of(leaseDatabase(), "leasehold_lease"));
  }

  private void assertNotIssued(GuardHarness h, FencingToken forged) {
    Optional<String> before = h.value(key);
    OptionalLong markBefore = h.mark(key);
    List<Long> logBefore = h.admittedFences(key);
    assertThatThrownBy(() -> h.write(key, forged, "forged"))
        .as("forged token %s", forged)
        .isInstanceOfSatisfying(
            TokenVerificationException.class,
            e -> assertThat(e.reason()).isEqualTo(TokenVerificationException.Reason.NOT_ISSUED));
    assertThat(h.value(key)).isEqualTo(before);
    assertThat(h.mark(key)).isEqualTo(markBefore);
    assertThat(h.admittedFences(key)).isEqualTo(logBefore);
  }

  /** The online mode: a fence the lease table never issued for the key is refused. */
  @Test
  void theOnlineModeRefusesANeverIssuedFence() {
    try (LeaseStore store =
        LeaseStore.builder(leaseDatabase()).accessPolicy(AccessPolicy.allowAll()).build()) {
      Lease lease = store.tryAcquire(key, "app").acquiredLease().orElseThrow();
      GuardHarness h = onlineHarness();
      h.write(key, lease, "honest");
      assertNotIssued(h, new FencingToken(key, Long.MAX_VALUE, lease.runId()));
      assertNotIssued(h, new FencingToken(key, lease.fence() + 1000, lease.runId()));
      assertNotIssued(h, new FencingToken(key, lease.fence(), UUID.randomUUID()));
      LeaseKey never = LeaseKey.of("acct", key.sessionId() + "-never-acquired");
      assertThatThrownBy(() -> h.write(never, new FencingToken(never, 1, UUID.randomUUID()), "x"))
          .isInstanceOf(TokenVerificationException.class);
      assertThat(h.mark(never)).isEmpty();
      h.write(key, lease, "honest again");
      assertThat(h.value(key)).contains("honest again");
      assertThat(h.mark(key)).hasValue(lease.fence());
    }
  }

  /**
   * Online verification admits a token only while its run holds the lease. Before 2026-12-05 it
   * read only fence and run id, so a run that had released was admitted (and a tool body ran).
   */
  @Test
  void aReleasedRunsTokenIsRefusedOnline() throws Exception {
    afterAnHonestOnlineWrite(
        (store, lease, token, h) -> {
          lease.release();
          assertEnded(h, token, "released the lease");
        });
  }

  /** What a test does once a run acquired {@link #key} and wrote with its token online. */
  private interface AfterHonestWrite {
    void run(LeaseStore store, Lease lease, FencingToken token, GuardHarness h) throws Exception;
  }

  private void afterAnHonestOnlineWrite(AfterHonestWrite then) throws Exception {
    try (LeaseStore store =
        LeaseStore.builder(leaseDatabase()).accessPolicy(AccessPolicy.allowAll()).build()) {
      Lease lease = store.tryAcquire(key, "app").acquiredLease().orElseThrow();
      FencingToken token = lease.token();
      GuardHarness h = onlineHarness();
      h.write(key, token, "honest");
      then.run(store, lease, token, h);
    }
  }

  /**
   * A run whose lease expired is refused online, and so is it once a newer run took the key over,
   * even where that newer run has not written yet (the resource's mark still equals the old run's
   * fence). Before 2026-12-05 both were admitted.
   */
  @Test
  void anExpiredOrSupersededRunsTokenIsRefusedOnline() throws Exception {
    afterAnHonestOnlineWrite(
        (store, lease, token, h) -> {
          // The lease ends by the database's clock: its expiry moved into the past, as if its
          // process had stopped renewing a while ago. statement_timestamp(), not the volatile
          // clock_timestamp(), which Citus refuses in an UPDATE.
          assertThat(
                  Sql.update(
                      leaseDatabase(),
                      "UPDATE leasehold_lease SET expires_at = statement_timestamp() - interval '1 second'"
                          + " WHERE account_id = ? AND session_id = ?",
                      key.accountId(),
                      key.sessionId()))
              .isEqualTo(1);
          assertEnded(h, token, "expired at");
          Lease newer = store.tryAcquire(key, "app").acquiredLease().orElseThrow();
          assertThat(newer.fence()).isGreaterThan(token.fence());
          assertEnded(h, token, "a newer run acquired the key with fence " + newer.fence());
          h.write(key, newer, "newer");
          assertThat(h.value(key)).contains("newer");
        });
  }

  private void assertEnded(GuardHarness h, FencingToken token, String why) {
    Optional<String> before = h.value(key);
    OptionalLong markBefore = h.mark(key);
    List<Long> logBefore = h.admittedFences(key);
    assertThatThrownBy(() -> h.write(key, token, "late"))
        .isInstanceOfSatisfying(
            TokenVerificationException.class,
            e -> {
              assertThat(e.reason()).isEqualTo(TokenVerificationException.Reason.EXPIRED);
              assertThat(e.getMessage()).contains(why).contains("acquire the key again");
            });
    assertThat(h.value(key)).isEqualTo(before);
    assertThat(h.mark(key)).isEqualTo(markBefore);
    assertThat(h.admittedFences(key)).isEqualTo(logBefore);
  }
}
