package io.leasehold.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.SignatureScheme;
import io.leasehold.fencing.SigningKey;
import io.leasehold.fencing.TokenKeySet;
import io.leasehold.fencing.TokenVerifier;
import java.time.Clock;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * CONTRACT C21 for guards with persistent state: refused input costs no state. Before issue 27 500
 * refused calls of a superseded run added 500 journal rows and 1 MB of arguments. Implement it with
 * {@link #stateSize(GuardHarness)} measuring everything the guard stores (bytes on disk, rows in
 * its tables), so that any record a refusal leaves shows.
 */
public interface BoundedGrowthContract {
  /**
   * A fresh guard on fresh storage with the given verifier.
   *
   * @param verifier the guard's verifier
   * @return the harness
   */
  GuardHarness growthHarness(TokenVerifier verifier);

  /**
   * Everything the guard stores, as one number that grows with any record (bytes, rows).
   *
   * @param harness the guard
   * @return the size
   */
  long stateSize(GuardHarness harness);

  /** 200 writes of a superseded run are refused and leave the state exactly as it was. */
  @Test
  default void staleWritesAddNothing() {
    GuardHarness h = growthHarness(TokenVerifier.trustEveryWriter());
    LeaseKey key = LeaseKey.of("acct", "chat-" + UUID.randomUUID());
    h.write(key, new FencingToken(key, 10, UUID.randomUUID()), "ten");
    long size = stateSize(h);
    FencingToken stale = new FencingToken(key, 5, UUID.randomUUID());
    for (int i = 0; i < 200; i++) {
      String value = "stale " + i + " " + "x".repeat(1000);
      assertThatThrownBy(() -> h.write(key, stale, value)).as("stale write %s", i).isNotNull();
    }
    assertThat(stateSize(h)).isEqualTo(size);
    assertThat(h.value(key)).contains("ten");
    assertThat(h.admittedFences(key)).containsExactly(10L);
  }

  /** 200 forged tokens (unsigned, and signed by a key the guard does not have) leave no state. */
  @Test
  default void forgedTokensAddNothing() {
    SigningKey store = SigningKey.generate(SignatureScheme.HMAC_SHA256, "store-1");
    GuardHarness h = growthHarness(TokenVerifier.signedBy(TokenKeySet.of(store.verificationKey())));
    LeaseKey key = LeaseKey.of("acct", "chat-" + UUID.randomUUID());
    h.write(
        key,
        store.sign(
            new FencingToken(key, 10, UUID.randomUUID()), Clock.systemUTC(), Duration.ofMinutes(5)),
        "ten");
    long size = stateSize(h);
    SigningKey forger = SigningKey.generate(SignatureScheme.HMAC_SHA256, "store-1");
    for (int i = 0; i < 100; i++) {
      LeaseKey k = LeaseKey.of("mallory", "s-" + i);
      FencingToken unsigned = new FencingToken(k, 1_000, UUID.randomUUID());
      FencingToken forged = forger.sign(unsigned, Clock.systemUTC(), Duration.ofMinutes(5));
      assertThatThrownBy(() -> h.write(k, unsigned, "unsigned"))
          .as("unsigned token %s", i)
          .isNotNull();
      assertThatThrownBy(() -> h.write(k, forged, "forged")).as("forged token %s", i).isNotNull();
    }
    assertThat(stateSize(h)).isEqualTo(size);
    assertThat(h.value(key)).contains("ten");
  }
}
