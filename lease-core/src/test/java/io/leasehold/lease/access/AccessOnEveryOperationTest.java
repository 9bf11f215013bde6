package io.leasehold.lease.access;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.SignatureScheme;
import io.leasehold.fencing.SigningKey;
import io.leasehold.fencing.TokenKeySet;
import io.leasehold.fencing.TokenVerificationException;
import io.leasehold.fencing.TokenVerifier;
import io.leasehold.lease.AccessDeniedException;
import io.leasehold.lease.AccessPolicy;
import io.leasehold.lease.BatchRenewal;
import io.leasehold.lease.Lease;
import io.leasehold.lease.LeaseLoss;
import io.leasehold.lease.LeaseStatus;
import io.leasehold.lease.LeaseStore;
import io.leasehold.lease.LeaseStoreBuilder;
import io.leasehold.lease.ReleaseResult;
import io.leasehold.lease.support.LeaseDatabase;
import io.leasehold.lease.support.OperationPolicy;
import io.leasehold.testing.Sql;
import io.leasehold.testing.TestDatabaseExtension;
import java.sql.SQLException;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * CONTRACT C15 (the store signs what it issues) and C17 (the access policy on every operation):
 * regression tests for issue 12, where a denied caller released another account's live lease and a
 * status read handed anyone the run id a token can be rebuilt from.
 */
class AccessOnEveryOperationTest {
  @RegisterExtension static final TestDatabaseExtension db = LeaseDatabase.extension();

  private static final AtomicInteger KEYS = new AtomicInteger();

  /** Callers whose access was revoked mid-run. */
  private final Set<String> revoked = ConcurrentHashMap.newKeySet();

  private LeaseStore store;
  private LeaseKey key;

  @BeforeEach
  void setUp() {
    store = ownersOnly().build();
    key = LeaseKey.of("alice", "chat-" + KEYS.incrementAndGet());
  }

  /**
   * A store where a caller reaches only its own account's keys, unless revoked; "ops" reaches all.
   */
  private LeaseStoreBuilder ownersOnly() {
    AccessPolicy owners = (caller, k) -> k.accountId().equals(caller) && !revoked.contains(caller);
    return LeaseStore.builder(db.dataSource())
        .accessPolicy(owners.withAdministrators(Set.of("ops")));
  }

  @AfterEach
  void tearDown() {
    store.close();
  }

  private Lease acquire(String caller) {
    return store.tryAcquire(key, caller).acquiredLease().orElseThrow();
  }

  @Test
  void aDeniedCallerCannotReleaseAnotherAccountsLease() {
    Lease lease = acquire("alice");
    FencingToken stolen = lease.identity();
    assertThatThrownBy(() -> store.release(stolen, "mallory"))
        .isInstanceOf(AccessDeniedException.class)
        .hasMessageContaining("nothing changed");
    LeaseStatus status = store.status(key, "alice");
    assertThat(status.isHeld()).isTrue();
    assertThat(status.owner().orElseThrow().runId()).isEqualTo(lease.runId());
    assertThat(lease.renew().renewed()).isTrue();
    assertThat(store.release(stolen, "alice").outcome()).isEqualTo(ReleaseResult.Outcome.RELEASED);
  }

  @Test
  void aStatusReadWithoutTheRightRevealsNoRunId() {
    Lease lease = acquire("alice");
    assertThatThrownBy(() -> store.status(key, "mallory"))
        .isInstanceOf(AccessDeniedException.class)
        .message()
        .doesNotContain(lease.runId().toString())
        .doesNotContain(Long.toString(lease.fence()));
  }

  @Test
  void revokedAccessEndsTheRunAtItsNextRenewal() {
    Lease lease = acquire("alice");
    Lease kept =
        store
            .tryAcquire(LeaseKey.of("alice", key.sessionId() + "-kept"), "alice")
            .acquiredLease()
            .orElseThrow();
    revoked.add("alice");
    assertThat(lease.renew().renewed()).isFalse();
    assertThat(lease.loss())
        .hasValueSatisfying(l -> assertThat(l.reason()).isEqualTo(LeaseLoss.Reason.ACCESS_REVOKED));
    BatchRenewal batch = store.renewAll(List.of(kept));
    assertThat(batch.renewed()).isZero();
    assertThat(batch.lost()).containsExactly(kept);
    assertThat(kept.loss().orElseThrow().reason()).isEqualTo(LeaseLoss.Reason.ACCESS_REVOKED);
  }

  @Test
  void aPolicyThatThrowsOnRenewalLosesTheLeaseInsteadOfKeepingIt() {
    AccessPolicy flaky =
        new OperationPolicy(
            operation -> {
              if (operation == AccessPolicy.Operation.RENEW) {
                throw new IllegalStateException("policy service down");
              }
              return true;
            });
    try (LeaseStore s = LeaseStore.builder(db.dataSource()).accessPolicy(flaky).build()) {
      Lease lease = s.tryAcquire(key, "alice").acquiredLease().orElseThrow();
      assertThat(lease.renew().renewed()).isFalse();
      assertThat(lease.isLost()).isTrue();
    }
  }

  @Test
  void forceReleaseIsForAdministratorsOnlyAndIsAudited() throws SQLException {
    Lease lease = acquire("alice");
    assertThatThrownBy(() -> store.admin().forceRelease(key, "alice", "try"))
        .isInstanceOf(AccessDeniedException.class);
    assertThat(auditRows()).noneMatch(r -> r.startsWith("force_release"));
    assertThat(store.status(key, "alice").isHeld()).isTrue();

    ReleaseResult forced = store.admin().forceRelease(key, "ops", "stuck run, ticket 42");
    assertThat(forced.outcome()).isEqualTo(ReleaseResult.Outcome.RELEASED);
    assertThat(lease.renew().renewed()).isFalse();
    assertThat(store.tryAcquire(key, "alice").acquiredLease()).isPresent(); // no wait for the TTL
    assertThat(
            store
                .admin()
                .forceRelease(LeaseKey.of("bob", "none"), "ops", "nothing there")
                .outcome())
        .isEqualTo(ReleaseResult.Outcome.NOT_HELD);
    List<String> rows = auditRows().stream().filter(r -> r.startsWith("force_release")).toList();
    assertThat(rows).hasSize(2);
    assertThat(rows.get(0))
        .contains(
            "force_release",
            "ops",
            key.sessionId(),
            "stuck run, ticket 42",
            "released run " + lease.runId());
    assertThat(rows.get(1)).contains("no live lease");
    assertThatThrownBy(() -> store.admin().forceRelease(key, "ops", ""))
        .hasMessageContaining("reason");
  }

  @Test
  void sweepIsForAdministratorsOnlyAndIsAudited() throws SQLException {
    assertThatThrownBy(() -> store.admin().sweep(LeaseStore.MAX_TTL, "alice"))
        .isInstanceOf(AccessDeniedException.class);
    assertThat(auditRows()).noneMatch(r -> r.contains("sweep"));
    store.admin().sweep(LeaseStore.MAX_TTL, "ops");
    assertThat(auditRows())
        .anyMatch(r -> r.contains("sweep") && r.contains("ops") && r.contains("deleted"));
  }

  @Test
  void aSigningStoreIssuesTokensThatOnlyItsKeysVerify() {
    SigningKey signing = SigningKey.generate(SignatureScheme.ED25519, "store-1");
    TokenVerifier verifier = TokenVerifier.signedBy(TokenKeySet.of(signing.verificationKey()));
    try (LeaseStore signed = ownersOnly().tokenSigningKey(signing).build()) {
      Lease lease = signed.tryAcquire(key, "alice").acquiredLease().orElseThrow();
      assertThat(lease.token().isSigned()).isTrue();
      verifier.verify(lease.token());
      verifier.verify(FencingToken.parse(lease.token().toText()));
      lease.release();
    }
    Lease unsigned = acquire("alice");
    assertThatThrownBy(() -> verifier.verify(unsigned.token()))
        .isInstanceOfSatisfying(
            TokenVerificationException.class,
            e -> assertThat(e.reason()).isEqualTo(TokenVerificationException.Reason.UNSIGNED));
  }

  /** This test's force releases (its key, or the account "bob"), then every sweep. */
  private List<String> auditRows() throws SQLException {
    return Sql.query(
            db.dataSource(),
            "SELECT operation, caller, account_id, session_id, reason, detail FROM leasehold_lease_audit"
                + " WHERE session_id = ? OR account_id = 'bob' OR operation = 'sweep' ORDER BY id",
            key.sessionId())
        .stream()
        .map(row -> row.stream().map(String::valueOf).collect(Collectors.joining(" | ")))
        .toList();
  }
}
