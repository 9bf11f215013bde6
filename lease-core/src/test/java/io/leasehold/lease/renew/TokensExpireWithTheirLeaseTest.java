package io.leasehold.lease.renew;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.SignatureScheme;
import io.leasehold.fencing.SignedTokenVerifier;
import io.leasehold.fencing.SigningKey;
import io.leasehold.fencing.TokenKeySet;
import io.leasehold.fencing.TokenSignature;
import io.leasehold.fencing.TokenVerificationException;
import io.leasehold.fencing.TokenVerifier;
import io.leasehold.lease.AccessPolicy;
import io.leasehold.lease.Lease;
import io.leasehold.lease.LeaseStore;
import io.leasehold.lease.support.LeaseDatabase;
import io.leasehold.testing.TestDatabaseExtension;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * CONTRACT C20, issue 27 finding 2: a signed token used to be valid forever, so a released run's
 * token, copied from a log or a file, was admitted by any resource that had not seen a newer run.
 * Now the store signs each token for its lease's window in database time and signs it again on
 * every renewal.
 */
class TokensExpireWithTheirLeaseTest {
  @RegisterExtension static final TestDatabaseExtension db = LeaseDatabase.extension();

  private static final AtomicInteger KEYS = new AtomicInteger();
  private final SigningKey signing = SigningKey.generate(SignatureScheme.ED25519, "store-1");

  private LeaseStore store() {
    return LeaseStore.builder(db.dataSource())
        .accessPolicy(AccessPolicy.allowAll())
        .ttl(Duration.ofSeconds(30))
        .tokenSigningKey(signing)
        .build();
  }

  private SignedTokenVerifier verifierAt(Instant now) {
    return TokenVerifier.signedBy(TokenKeySet.of(signing.verificationKey()))
        .withClock(Clock.fixed(now, ZoneOffset.UTC))
        .withClockSkew(Duration.ofSeconds(2));
  }

  /**
   * Verifies {@code token} as of {@code now}; the verifier must refuse it for {@code reason}.
   *
   * @return the refusal, for the test to check what it says
   */
  private TokenVerificationException refusedAt(
      Instant now, FencingToken token, TokenVerificationException.Reason reason) {
    try {
      verifierAt(now).verify(token);
    } catch (TokenVerificationException e) {
      assertThat(e.reason()).isEqualTo(reason);
      return e;
    }
    throw new AssertionError("admitted as of " + now + ": " + token);
  }

  private static LeaseKey key() {
    return LeaseKey.of("acct", "expiry-" + KEYS.incrementAndGet());
  }

  @Test
  void aSignedTokenIsValidFromAcquisitionUntilTheLeasesExpiry() {
    try (LeaseStore store = store()) {
      Lease lease = store.tryAcquire(key(), "acct").acquiredLease().orElseThrow();
      TokenSignature sig = lease.token().signature().orElseThrow();
      assertThat(sig.validFrom()).isEqualTo(lease.acquiredAt().truncatedTo(ChronoUnit.MILLIS));
      assertThat(sig.validUntil()).isEqualTo(lease.expiresAt().truncatedTo(ChronoUnit.MILLIS));
      assertThat(lease.token().validUntil()).contains(sig.validUntil());
    }
  }

  @Test
  void aReleasedRunsCopiedTokenIsRefusedOnceItsWindowAndTheSkewHavePassed() {
    try (LeaseStore store = store()) {
      Lease lease = store.tryAcquire(key(), "acct").acquiredLease().orElseThrow();
      FencingToken copied = lease.token();
      lease.release();
      Instant end = copied.validUntil().orElseThrow();
      verifierAt(end.plusSeconds(2)).verify(copied); // inside the skew allowance
      assertThat(
              refusedAt(
                  end.plusSeconds(2).plusMillis(1),
                  copied,
                  TokenVerificationException.Reason.EXPIRED))
          .hasMessageContaining("expired at " + end)
          .hasMessageContaining("pass the Lease");
    }
  }

  @Test
  void aRenewedLeasePresentsAFreshTokenWhileTheOldOneExpires() {
    try (LeaseStore store = store()) {
      Lease lease = store.tryAcquire(key(), "acct").acquiredLease().orElseThrow();
      FencingToken first = lease.token();
      Instant firstEnd = first.validUntil().orElseThrow();
      // Each renewal is a committed statement, so the database clock moves; renew until it moved
      // past a millisecond (bounded: a stuck clock fails the test).
      FencingToken renewed = first;
      for (int i = 0; i < 1000 && !renewed.validUntil().orElseThrow().isAfter(firstEnd); i++) {
        assertThat(lease.renew().renewed()).isTrue();
        renewed = lease.token();
      }
      assertThat(renewed.validUntil().orElseThrow()).isAfter(firstEnd);
      assertThat(renewed.fence()).isEqualTo(first.fence());
      assertThat(renewed.runId()).isEqualTo(first.runId());
      assertThat(renewed.signature().orElseThrow().validFrom())
          .isEqualTo(first.signature().orElseThrow().validFrom());

      Instant justAfterFirstEnd = firstEnd.plusSeconds(2).plusMillis(1);
      verifierAt(justAfterFirstEnd).verify(renewed);
      refusedAt(justAfterFirstEnd, first, TokenVerificationException.Reason.EXPIRED);
    }
  }

  @Test
  void aTokenFromTheFutureIsRefusedBeyondTheSkew() {
    try (LeaseStore store = store()) {
      Lease lease = store.tryAcquire(key(), "acct").acquiredLease().orElseThrow();
      FencingToken token = lease.token();
      Instant start = token.signature().orElseThrow().validFrom();
      verifierAt(start.minusSeconds(2)).verify(token);
      assertThat(
              refusedAt(
                  start.minusSeconds(2).minusMillis(1),
                  token,
                  TokenVerificationException.Reason.NOT_YET_VALID))
          .hasMessageContaining("NTP");
    }
  }

  @Test
  void anUnsignedStoreIssuesUnsignedTokensWithoutAWindow() {
    try (LeaseStore store =
        LeaseStore.builder(db.dataSource()).accessPolicy(AccessPolicy.allowAll()).build()) {
      Lease lease = store.tryAcquire(key(), "acct").acquiredLease().orElseThrow();
      assertThat(lease.renew().renewed()).isTrue();
      assertThat(lease.token().isSigned()).isFalse();
      assertThat(lease.token().validUntil()).isEmpty();
    }
  }
}
