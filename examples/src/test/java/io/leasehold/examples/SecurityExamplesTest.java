package io.leasehold.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.leasehold.adapters.file.FencedFileStore;
import io.leasehold.adapters.jdbc.FencedJdbcWriter;
import io.leasehold.adapters.jdbc.HighWaterSchema;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.MarkReset;
import io.leasehold.fencing.SignatureScheme;
import io.leasehold.fencing.SigningKey;
import io.leasehold.fencing.StaleFenceException;
import io.leasehold.fencing.TokenKeySet;
import io.leasehold.fencing.TokenVerificationException;
import io.leasehold.fencing.TokenVerifier;
import io.leasehold.lease.Lease;
import io.leasehold.lease.LeaseSchema;
import io.leasehold.lease.LeaseStore;
import io.leasehold.lease.ReleaseResult;
import io.leasehold.testing.TestDatabaseExtension;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** Runs docs/security.md's samples end to end on real PostgreSQL. */
class SecurityExamplesTest {
  @RegisterExtension
  static final TestDatabaseExtension db =
      TestDatabaseExtension.withSchemas(
          "security", LeaseSchema.defaults()::apply, HighWaterSchema.defaults()::apply);

  @TempDir Path dir;

  @Test
  void signedTokensReachAVerifyingResourceAndForgeriesDoNot() throws Exception {
    SecurityExamples.generateKeys(dir);
    assertThat(
            PosixFilePermissions.toString(
                Files.getPosixFilePermissions(dir.resolve("signing.key"))))
        .isEqualTo("rw-------");
    FencedFileStore files = SecurityExamples.verifyingResource(dir.resolve("files"), dir);
    LeaseKey session = LeaseKey.of("acct-7", "chat-1");
    try (LeaseStore store = SecurityExamples.signingStore(db.dataSource(), dir)) {
      Lease lease = store.tryAcquire(session, "acct-7").acquiredLease().orElseThrow();
      files.write(lease, "acct-7/chat-1/a.md", new byte[] {1});
      FencingToken forged = new FencingToken(session, Long.MAX_VALUE, UUID.randomUUID());
      assertThatThrownBy(() -> files.write(forged, "acct-7/chat-1/a.md", new byte[] {2}))
          .isInstanceOf(TokenVerificationException.class);
      assertThat(files.highWaterMark(session)).hasValue(lease.fence());

      // The recovery, had a forged mark got in (here: through a store that trusted everyone).
      FencedFileStore trusting =
          FencedFileStore.builder(dir.resolve("files"))
              .verifier(TokenVerifier.trustEveryWriter())
              .adminPolicy(io.leasehold.fencing.AdminPolicy.operators(java.util.Set.of("oncall")))
              .open();
      trusting.write(forged, "acct-7/chat-1/a.md", new byte[] {3});
      assertThatThrownBy(() -> files.write(lease, "acct-7/chat-1/a.md", new byte[] {4}))
          .isInstanceOf(StaleFenceException.class);
      MarkReset reset = SecurityExamples.recover(files, session, lease.fence());
      assertThat(reset.previousMark()).isEqualTo(Long.MAX_VALUE);
      files.write(lease, "acct-7/chat-1/a.md", new byte[] {5});
      assertThat(files.markResets()).containsExactly(reset);
      lease.release();
    }
  }

  @Test
  void onlineVerificationAndForceRelease() throws Exception {
    LeaseKey session = LeaseKey.of("acct-8", "chat-1");
    Object[] resources = SecurityExamples.onlineResources(db.dataSource(), dir.resolve("online"));
    FencedFileStore files = (FencedFileStore) resources[0];
    FencedJdbcWriter writer = (FencedJdbcWriter) resources[1];
    try (LeaseStore store =
        LeaseStore.builder(db.dataSource())
            .accessPolicy(io.leasehold.lease.AccessPolicy.allowAll())
            .build()) {
      Lease lease = store.tryAcquire(session, "acct-8").acquiredLease().orElseThrow();
      files.write(lease, "acct-8/chat-1/a.md", new byte[] {1});
      writer.write(lease, (c, t) -> null);
      FencingToken ahead = new FencingToken(session, lease.fence() + 1, lease.runId());
      assertThatThrownBy(() -> files.write(ahead, "acct-8/chat-1/a.md", new byte[] {2}))
          .isInstanceOf(TokenVerificationException.class);
      assertThatThrownBy(() -> writer.write(ahead, (c, t) -> null))
          .isInstanceOf(TokenVerificationException.class);
      assertThat(SecurityExamples.forceRelease(db.dataSource(), session).outcome())
          .isEqualTo(ReleaseResult.Outcome.RELEASED);
      assertThat(lease.renew().renewed()).isFalse();
    }
  }

  @Test
  void rotationRetiresTheOldKey() {
    SigningKey old = SigningKey.generate(SignatureScheme.HMAC_SHA256, "old");
    SigningKey next = SigningKey.generate(SignatureScheme.HMAC_SHA256, "new");
    Object[] rotated = SecurityExamples.rotate(TokenKeySet.of(old.verificationKey()), next, "old");
    TokenVerifier verifier = (TokenVerifier) rotated[0];
    FencingToken t = new FencingToken(LeaseKey.of("a", "b"), 3, UUID.randomUUID());
    verifier.verify(next.sign(t, Clock.systemUTC(), Duration.ofMinutes(5)));
    assertThatThrownBy(() -> verifier.verify(old.sign(t, Clock.systemUTC(), Duration.ofMinutes(5))))
        .isInstanceOf(TokenVerificationException.class);
    assertThat(((TokenKeySet) rotated[1]).keys()).extracting(k -> k.keyId()).containsExactly("new");
  }
}
