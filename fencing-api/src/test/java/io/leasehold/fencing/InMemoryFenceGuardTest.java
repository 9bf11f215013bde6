package io.leasehold.fencing;

import java.time.Duration;

import java.time.Clock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.Test;

class InMemoryFenceGuardTest {
  private static final LeaseKey KEY = LeaseKey.of("acct", "sess");

  private static FencingToken token(long fence) {
    return new FencingToken(KEY, fence, UUID.randomUUID());
  }

  @Test
  void admitsEqualAndHigherRefusesLower() {
    InMemoryFenceGuard guard = InMemoryFenceGuard.create(TokenVerifier.trustEveryWriter());
    assertThat(guard.highWaterMark(KEY)).isEmpty();
    assertThat(guard.admit(token(5)).previousMark()).isZero();
    assertThat(guard.admit(token(5)).raisedMark()).isFalse();
    assertThat(guard.admit(token(9)).previousMark()).isEqualTo(5);
    assertThatThrownBy(() -> guard.admit(token(8)))
        .asInstanceOf(InstanceOfAssertFactories.type(StaleFenceException.class))
        .extracting(StaleFenceException::presentedFence, StaleFenceException::highestFence, StaleFenceException::key)
        .containsExactly(8L, 9L, KEY);
    assertThat(guard.highWaterMark(KEY)).hasValue(9);
  }

  @Test
  void keysAreIndependent() {
    InMemoryFenceGuard guard = InMemoryFenceGuard.create(TokenVerifier.trustEveryWriter());
    guard.admit(token(100));
    LeaseKey other = LeaseKey.of("acct", "other");
    guard.admit(new FencingToken(other, 1, UUID.randomUUID()));
    assertThat(guard.highWaterMark(other)).hasValue(1);
  }

  @Test
  void lostLeaseIsRefusedBeforeTheWrite() {
    InMemoryFenceGuard guard = InMemoryFenceGuard.create(TokenVerifier.trustEveryWriter());
    FencingToken t = token(3);
    Fenced lost =
        () -> {
          throw new LeaseLostException(t, "test");
        };
    AtomicInteger writes = new AtomicInteger();
    assertThatThrownBy(() -> guard.runFenced(lost, writes::incrementAndGet))
        .isInstanceOf(LeaseLostException.class);
    assertThat(writes).hasValue(0);
    assertThat(guard.highWaterMark(KEY)).isEmpty();
    assertThatThrownBy(() -> guard.admit(null)).isInstanceOf(IllegalArgumentException.class);
  }

  /**
   * Many threads write a shared register through the guard with random fences. The register's
   * log of admitted fences must never decrease, and the final value must be the highest fence
   * admitted.
   */
  @Test
  void noStaleWriteUnderContention() throws Exception {
    InMemoryFenceGuard guard = InMemoryFenceGuard.create(TokenVerifier.trustEveryWriter());
    int threads = 8;
    int perThread = 20_000;
    List<Long> log = new ArrayList<>();
    long[] register = new long[1];
    CyclicBarrier start = new CyclicBarrier(threads);
    AtomicInteger refused = new AtomicInteger();
    List<Thread> workers = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      Thread w =
          new Thread(
              () -> {
                try {
                  start.await();
                } catch (Exception e) {
                  throw new IllegalStateException(e);
                }
                for (int i = 0; i < perThread; i++) {
                  long fence = 1 + ThreadLocalRandom.current().nextInt(1000) + i / 10;
                  try {
                    guard.runFenced(
                        token(fence),
                        () -> {
                          // Plain (unsynchronized-looking) state: the guard's per-key lock is
                          // what keeps it consistent.
                          register[0] = fence;
                          log.add(fence);
                          return null;
                        });
                  } catch (StaleFenceException e) {
                    refused.incrementAndGet();
                  }
                }
              });
      workers.add(w);
      w.start();
    }
    for (Thread w : workers) {
      w.join();
    }
    assertThat(log.size() + refused.get()).isEqualTo(threads * perThread);
    assertThat(refused.get()).isPositive();
    for (int i = 1; i < log.size(); i++) {
      assertThat(log.get(i)).as("admitted fence #%d", i).isGreaterThanOrEqualTo(log.get(i - 1));
    }
    long highest = log.get(log.size() - 1);
    assertThat(register[0]).isEqualTo(highest);
    assertThat(guard.highWaterMark(KEY)).hasValue(highest);
  }

  /** Issue 12: a forged token with fence Long.MAX_VALUE locked honest runs out for good. */
  @Test
  void forgedTokensAreRefusedBeforeTheMarkWhenSignaturesAreRequired() {
    SigningKey store = SigningKey.generate(SignatureScheme.HMAC_SHA256, "k1");
    InMemoryFenceGuard guard =
        InMemoryFenceGuard.create(TokenVerifier.signedBy(TokenKeySet.of(store.verificationKey())));
    guard.admit(store.sign(token(3), Clock.systemUTC(), Duration.ofMinutes(5)));
    FencingToken forged = new FencingToken(KEY, Long.MAX_VALUE, UUID.randomUUID());
    assertThatThrownBy(() -> guard.admit(forged)).isInstanceOf(TokenVerificationException.class);
    assertThatThrownBy(() -> guard.runFenced(forged, () -> "written"))
        .isInstanceOf(TokenVerificationException.class);
    FencingToken tampered = new FencingToken(KEY, Long.MAX_VALUE, UUID.randomUUID(), store.sign(token(4), Clock.systemUTC(), Duration.ofMinutes(5)).signature());
    assertThatThrownBy(() -> guard.admit(tampered)).isInstanceOf(TokenVerificationException.class);
    assertThat(guard.highWaterMark(KEY)).hasValue(3);
    assertThat(guard.admit(store.sign(token(6), Clock.systemUTC(), Duration.ofMinutes(5))).previousMark()).isEqualTo(3); // honest runs go on
  }

  @Test
  void everyGuardNamesItsVerification() {
    assertThatThrownBy(() -> InMemoryFenceGuard.builder().build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("trustEveryWriter");
  }

  /** Issue 13: 1M forged keys took ~207 MiB; now bounded, and a forgotten key is not reset. */
  @Test
  void forgettingKeysNeverAdmitsAStaleWriter() {
    InMemoryFenceGuard guard =
        InMemoryFenceGuard.builder().verifier(TokenVerifier.trustEveryWriter()).maxKeys(100).build();
    guard.admit(token(500));
    // Fences come from one sequence, so later runs of any key carry higher fences.
    for (int i = 0; i < 10_000; i++) {
      guard.admit(new FencingToken(LeaseKey.of("flood", "s" + i), 600 + i, UUID.randomUUID()));
    }
    assertThat(guard.rememberedKeys()).isLessThanOrEqualTo(100);
    assertThat(guard.highWaterMark(KEY).orElseThrow()).isGreaterThanOrEqualTo(500);
    assertThatThrownBy(() -> guard.admit(token(499))).isInstanceOf(StaleFenceException.class);
    guard.admit(token(20_000)); // the session's next run
  }

  /**
   * Issue 27, finding 4: with maxKeys(50), mallory admitting 60 of her own valid leases raised
   * the one global floor, and bob's live run was refused on its next write ("already admitted
   * fence 58"). Forgetting now stays within the account that needs room.
   */
  @Test
  void oneAccountsFloodNeverRaisesAnotherAccountsFloor() {
    InMemoryFenceGuard guard =
        InMemoryFenceGuard.builder().verifier(TokenVerifier.trustEveryWriter()).maxKeys(50).build();
    LeaseKey bobs = LeaseKey.of("bob", "chat");
    FencingToken bob = new FencingToken(bobs, 1, UUID.randomUUID());
    guard.admit(bob);
    for (int i = 0; i < 60; i++) {
      guard.admit(new FencingToken(LeaseKey.of("mallory", "s" + i), 2 + i, UUID.randomUUID()));
    }
    assertThat(guard.rememberedKeys()).isLessThanOrEqualTo(50);
    guard.admit(bob); // bob's live run writes again
    assertThat(guard.highWaterMark(bobs)).hasValue(1);
    // Mallory's forgotten keys keep her own floor: her stale writer is still refused.
    assertThatThrownBy(() -> guard.admit(new FencingToken(LeaseKey.of("mallory", "s0"), 1, UUID.randomUUID())))
        .isInstanceOf(StaleFenceException.class);
    // A new account arriving at a full guard makes room from the largest account, not from bob.
    LeaseKey carols = LeaseKey.of("carol", "chat");
    guard.admit(new FencingToken(carols, 1, UUID.randomUUID()));
    assertThat(guard.highWaterMark(carols)).hasValue(1);
    guard.admit(bob);
    assertThat(guard.rememberedKeys()).isLessThanOrEqualTo(50);
  }

  @Test
  void aMarkResetNeedsAnAdministratorAndIsRecorded() {
    InMemoryFenceGuard guard =
        InMemoryFenceGuard.builder()
            .verifier(TokenVerifier.trustEveryWriter())
            .adminPolicy(AdminPolicy.operators(java.util.Set.of("alice")))
            .build();
    guard.admit(token(Long.MAX_VALUE));
    assertThatThrownBy(() -> guard.resetMark(KEY, 12, "mallory", "because"))
        .isInstanceOf(AdminDeniedException.class);
    assertThatThrownBy(() -> guard.resetMark(KEY, 12, "alice", " ")).hasMessageContaining("reason");
    assertThat(guard.highWaterMark(KEY)).hasValue(Long.MAX_VALUE);
    assertThat(guard.markResets()).isEmpty();

    MarkReset reset = guard.resetMark(KEY, 12, "alice", "forged token, incident 7");
    assertThat(reset.previousMark()).isEqualTo(Long.MAX_VALUE);
    assertThat(guard.markResets()).containsExactly(reset);
    assertThatThrownBy(() -> guard.admit(token(11))).isInstanceOf(StaleFenceException.class);
    guard.admit(token(12));
  }
}
