package io.leasehold.fencing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.time.Clock;
import java.time.Duration;
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

  /** A guard that trusts every token and remembers at most {@code maxKeys} keys. */
  private static InMemoryFenceGuard guardOf(int maxKeys) {
    return InMemoryFenceGuard.builder()
        .verifier(TokenVerifier.trustEveryWriter())
        .maxKeys(maxKeys)
        .build();
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
        .extracting(
            StaleFenceException::presentedFence,
            StaleFenceException::highestFence,
            StaleFenceException::key)
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
   * Many threads write a shared register through the guard with random fences. The register's log
   * of admitted fences must never decrease, and the final value must be the highest fence admitted.
   */
  @Test
  void noStaleWriteUnderContention() throws Exception {
    InMemoryFenceGuard guard = InMemoryFenceGuard.create(TokenVerifier.trustEveryWriter());
    int threads = 8;
    int perThread = 20_000;
    List<Long> log = new ArrayList<>();
    long[] register = new long[1];
    AtomicInteger refused = new AtomicInteger();
    onThreadsAtOnce(
        threads,
        () -> {
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
    FencingToken tampered =
        new FencingToken(
            KEY,
            Long.MAX_VALUE,
            UUID.randomUUID(),
            store.sign(token(4), Clock.systemUTC(), Duration.ofMinutes(5)).signature());
    assertThatThrownBy(() -> guard.admit(tampered)).isInstanceOf(TokenVerificationException.class);
    assertThat(guard.highWaterMark(KEY)).hasValue(3);
    assertThat(
            guard
                .admit(store.sign(token(6), Clock.systemUTC(), Duration.ofMinutes(5)))
                .previousMark())
        .isEqualTo(3); // honest runs go on
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
    InMemoryFenceGuard guard = guardOf(100);
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
   * Issue 27, finding 4: with maxKeys(50), mallory admitting 60 of her own valid leases raised the
   * one global floor, and bob's live run was refused on its next write ("already admitted fence
   * 58"). Forgetting now stays within the account that needs room.
   */
  @Test
  void oneAccountsFloodNeverRaisesAnotherAccountsFloor() {
    InMemoryFenceGuard guard = guardOf(50);
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
    assertThatThrownBy(
            () -> guard.admit(new FencingToken(LeaseKey.of("mallory", "s0"), 1, UUID.randomUUID())))
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

  /**
   * Issue 46, item 4: with maxKeys(40_000), each admission of a new account's key into the full
   * guard cost about 2.8 ms (it scanned every account ever seen and every mark to forget one), and
   * a flood of 1,000,000 new accounts ran for more than 5 CPU-minutes. It now finishes in about a
   * second, with the bound kept and every account's floor its own.
   */
  @Test
  void aFloodOfNewAccountsIntoAFullGuardFinishes() {
    int bound = 40_000;
    InMemoryFenceGuard guard = guardOf(bound);
    LeaseKey bobs = LeaseKey.of("bob", "chat");
    FencingToken bob = new FencingToken(bobs, 1, UUID.randomUUID());
    guard.admit(bob);
    for (int i = 0; i < bound - 1; i++) {
      guard.admit(new FencingToken(LeaseKey.of("crowd", "s" + i), 2 + i, new UUID(0, i)));
    }
    assertThat(guard.rememberedKeys()).isEqualTo(bound);
    int flood = 1_000_000;
    long firstFence = 1_000_000;
    assertTimeoutPreemptively(
        Duration.ofSeconds(60),
        () -> {
          for (int i = 0; i < flood; i++) {
            guard.admit(
                new FencingToken(LeaseKey.of("tenant-" + i, "s"), firstFence + i, new UUID(1, i)));
          }
        },
        "a flood of 1,000,000 new accounts into a full guard must finish (it took minutes before issue 46)");
    assertThat(guard.rememberedKeys()).isLessThanOrEqualTo(bound);
    // Every flooding account's forgotten key keeps exactly its own mark: no floor leaked across.
    for (int i : new int[] {0, 1, 77_777, flood / 2, flood - bound - 1}) {
      LeaseKey k = LeaseKey.of("tenant-" + i, "s");
      assertThat(guard.highWaterMark(k)).as("mark of %s", k).hasValue(firstFence + i);
      long stale = firstFence + i - 1;
      assertThatThrownBy(() -> guard.admit(new FencingToken(k, stale, UUID.randomUUID())))
          .isInstanceOf(StaleFenceException.class);
    }
    // The crowd's keys were forgotten under its own floor: its stale writers stay refused.
    assertThatThrownBy(
            () -> guard.admit(new FencingToken(LeaseKey.of("crowd", "s0"), 1, UUID.randomUUID())))
        .isInstanceOf(StaleFenceException.class);
    // Bob's live run writes again, whether his key was remembered or forgotten (C19).
    assertThat(guard.admit(bob).previousMark()).isEqualTo(1);
    assertThat(guard.highWaterMark(bobs)).hasValue(1);
    assertThat(guard.rememberedKeys()).isLessThanOrEqualTo(bound);
  }

  /**
   * Room is made as the class documentation says: of the new key's own account if it has keys, else
   * of the account holding the most; a tenth of the bound at a time, the keys held longest first;
   * the other accounts untouched.
   */
  @Test
  void roomIsMadeFromTheLargestAccountOldestKeysFirst() {
    InMemoryFenceGuard guard = guardOf(100);
    long fence = 0;
    for (int i = 0; i < 50; i++) {
      guard.admit(new FencingToken(LeaseKey.of("big", "s" + i), ++fence, UUID.randomUUID()));
    }
    for (int i = 0; i < 30; i++) {
      guard.admit(new FencingToken(LeaseKey.of("mid", "s" + i), ++fence, UUID.randomUUID()));
    }
    for (int i = 0; i < 20; i++) {
      guard.admit(new FencingToken(LeaseKey.of("small", "s" + i), ++fence, UUID.randomUUID()));
    }
    assertThat(guard.rememberedKeys()).isEqualTo(100);
    // big's first ten keys (fences 1-10) made room: their floor is 10, the eleventh keeps its own.
    guard.admit(new FencingToken(LeaseKey.of("newcomer", "s"), ++fence, UUID.randomUUID()));
    assertThat(guard.rememberedKeys()).isEqualTo(91);
    assertThat(guard.highWaterMark(LeaseKey.of("big", "s0"))).hasValue(10);
    assertThat(guard.highWaterMark(LeaseKey.of("big", "s10"))).hasValue(11);
    assertThat(guard.highWaterMark(LeaseKey.of("mid", "s0"))).hasValue(51);
    assertThat(guard.highWaterMark(LeaseKey.of("small", "s0"))).hasValue(81);
    assertThat(guard.highWaterMark(LeaseKey.of("mid", "never-seen"))).isEmpty();
    // Full again: mid's new key makes room from mid itself, its oldest ten keys (fences 51-60).
    for (int i = 0; guard.rememberedKeys() < 100; i++) {
      guard.admit(
          new FencingToken(LeaseKey.of("newcomer", "more" + i), ++fence, UUID.randomUUID()));
    }
    guard.admit(new FencingToken(LeaseKey.of("mid", "new"), ++fence, UUID.randomUUID()));
    assertThat(guard.highWaterMark(LeaseKey.of("mid", "never-seen"))).hasValue(60);
    assertThat(guard.highWaterMark(LeaseKey.of("mid", "s10"))).hasValue(61);
    assertThat(guard.highWaterMark(LeaseKey.of("big", "s10"))).hasValue(11);
    assertThat(guard.highWaterMark(LeaseKey.of("small", "never-seen"))).isEmpty();
  }

  /**
   * A write that admits new keys of its own account into a full guard must not have its own key
   * forgotten under it: the old guard forgot it, so a newer run of that key was admitted and wrote
   * while the older write was still running.
   */
  @Test
  void aWriteThatAdmitsNewKeysNeverHasItsOwnKeyForgotten() throws Exception {
    InMemoryFenceGuard guard = guardOf(100);
    AtomicInteger newerWrites = new AtomicInteger();
    Thread[] newer = new Thread[1];
    guard.runFenced(
        token(5),
        () -> {
          for (int i = 1; i <= 9; i++) {
            guard.admit(
                new FencingToken(LeaseKey.of("acct", "s" + i), 1 + i % 5, UUID.randomUUID()));
          }
          for (int i = 0; i < 90; i++) {
            guard.admit(new FencingToken(LeaseKey.of("other", "s" + i), 1, UUID.randomUUID()));
          }
          // Full: this key of acct makes room from acct's ten keys, this write's own among them.
          guard.admit(new FencingToken(LeaseKey.of("acct", "s10"), 5, UUID.randomUUID()));
          newer[0] = new Thread(() -> guard.runFenced(token(6), newerWrites::incrementAndGet));
          newer[0].start();
          // The newer run must wait for this write's lock (parked on it: WAITING); it must not
          // run beside it.
          while (newer[0].isAlive() && newer[0].getState() != Thread.State.WAITING) {
            Thread.onSpinWait();
          }
          assertThat(newerWrites).as("a newer run wrote during this run's write").hasValue(0);
          assertThat(newer[0].isAlive()).isTrue();
          return null;
        });
    newer[0].join();
    assertThat(newerWrites).hasValue(1);
    assertThat(guard.highWaterMark(KEY)).hasValue(6);
  }

  /**
   * Threads admit keys of several accounts into a guard far too small for them, so keys are
   * forgotten and remembered again all the time, while writes of the same keys run. Per key, the
   * writes never overlap and the admitted fences never go down, across every time the key was
   * forgotten; and the guard stays within its bound.
   */
  @Test
  void forgettingWhileOtherThreadsWriteNeverAdmitsAStaleWriter() throws Exception {
    int bound = 50;
    InMemoryFenceGuard guard = guardOf(bound);
    List<LeaseKey> keys = new ArrayList<>();
    for (int a = 0; a < 8; a++) {
      for (int k = 0; k < 20; k++) {
        keys.add(LeaseKey.of("acct-" + a, "s" + k));
      }
    }
    java.util.Map<LeaseKey, List<Long>> logs = new java.util.concurrent.ConcurrentHashMap<>();
    java.util.Map<LeaseKey, AtomicInteger> inWrite = new java.util.concurrent.ConcurrentHashMap<>();
    java.util.concurrent.atomic.AtomicLong sequence =
        new java.util.concurrent.atomic.AtomicLong(2_000);
    List<String> overlaps = java.util.Collections.synchronizedList(new ArrayList<>());
    int threads = 4;
    onThreadsAtOnce(
        threads,
        () -> {
          for (int i = 0; i < 20_000; i++) {
            LeaseKey k = keys.get(ThreadLocalRandom.current().nextInt(keys.size()));
            long fence = sequence.incrementAndGet() - ThreadLocalRandom.current().nextInt(2_000);
            try {
              guard.runFenced(
                  new FencingToken(k, fence, UUID.randomUUID()),
                  () -> {
                    AtomicInteger writers = inWrite.computeIfAbsent(k, x -> new AtomicInteger());
                    if (writers.incrementAndGet() != 1) {
                      overlaps.add(k + " at fence " + fence);
                    }
                    logs.computeIfAbsent(
                            k, x -> java.util.Collections.synchronizedList(new ArrayList<>()))
                        .add(fence);
                    writers.decrementAndGet();
                    return null;
                  });
            } catch (StaleFenceException e) {
              // the refusal this test provokes
            }
          }
        });
    assertThat(overlaps).as("writes of one key that overlapped").isEmpty();
    // Each thread that made room at the same moment as another may have passed the bound by one.
    assertThat(guard.rememberedKeys()).isLessThanOrEqualTo(bound + threads);
    for (java.util.Map.Entry<LeaseKey, List<Long>> e : logs.entrySet()) {
      List<Long> log = e.getValue();
      for (int i = 1; i < log.size(); i++) {
        assertThat(log.get(i))
            .as("admission #%d of %s", i, e.getKey())
            .isGreaterThanOrEqualTo(log.get(i - 1));
      }
      assertThat(guard.highWaterMark(e.getKey()).orElseThrow())
          .isGreaterThanOrEqualTo(log.get(log.size() - 1));
    }
  }

  /**
   * Red team 47b, finding 2: with k0 forgotten (its account's floor 100) and k1 still remembered at
   * 99, a stale admission of k0 at 99 was refused, but while refusing it the guard remembered k0
   * and made room by forgetting k1, so k1 read 100 and its live run at 99 was refused. A refused
   * call now changes nothing (CONTRACT C13, C21).
   */
  @Test
  void aRefusedWriteOfAForgottenKeyForgetsNothing() {
    InMemoryFenceGuard guard = guardOf(10);
    for (int i = 0; i < 10; i++) {
      guard.admit(new FencingToken(LeaseKey.of("solo", "k" + i), 100 - i, UUID.randomUUID()));
    }
    guard.admit(new FencingToken(LeaseKey.of("solo", "k10"), 200, UUID.randomUUID()));
    LeaseKey k0 = LeaseKey.of("solo", "k0");
    LeaseKey k1 = LeaseKey.of("solo", "k1");
    assertThat(guard.highWaterMark(k0)).as("k0, forgotten: the floor").hasValue(100);
    assertThat(guard.highWaterMark(k1)).hasValue(99);
    int remembered = guard.rememberedKeys();

    assertThatThrownBy(() -> guard.admit(new FencingToken(k0, 99, UUID.randomUUID())))
        .asInstanceOf(InstanceOfAssertFactories.type(StaleFenceException.class))
        .extracting(StaleFenceException::highestFence)
        .isEqualTo(100L);
    assertThatThrownBy(() -> guard.runFenced(new FencingToken(k0, 99, UUID.randomUUID()), () -> 1))
        .isInstanceOf(StaleFenceException.class);

    assertThat(guard.highWaterMark(k1)).as("k1 still remembered").hasValue(99);
    assertThat(guard.rememberedKeys()).isEqualTo(remembered);
    assertThat(guard.admit(new FencingToken(k1, 99, UUID.randomUUID())).previousMark())
        .as("k1's live run writes again")
        .isEqualTo(99);
  }

  /**
   * Red team 47b, finding 3: an account whose keys were all forgotten (floor 529) sent one stale
   * write; the guard remembered that key to refuse it, and made room from the largest account, the
   * victim's, whose live older session (fence 5, its newer one at 7) was then refused. Another
   * account's refused calls now forget nothing of anyone's (CONTRACT C19, C21).
   */
  @Test
  void anotherAccountsRefusedCallsNeverGetAVictimsLiveRunRefused() {
    InMemoryFenceGuard guard = guardOf(30); // makes room three keys at a time
    for (int i = 0; i < 30; i++) {
      guard.admit(new FencingToken(LeaseKey.of("attacker", "a" + i), 500 + i, UUID.randomUUID()));
    }
    LeaseKey attackers = LeaseKey.of("attacker", "a0");
    LeaseKey victimsNew = LeaseKey.of("victim", "new");
    LeaseKey victimsOld = LeaseKey.of("victim", "old");
    int crowd = 0;
    guard.admit(new FencingToken(LeaseKey.of("crowd" + crowd++, "s"), 1, UUID.randomUUID()));
    guard.admit(new FencingToken(victimsNew, 7, UUID.randomUUID()));
    guard.admit(new FencingToken(victimsOld, 5, UUID.randomUUID()));
    // New accounts make the largest account, the attacker's, forget all its keys; then fill up.
    while (guard.highWaterMark(attackers).orElse(0) < 529 || guard.rememberedKeys() < 30) {
      guard.admit(new FencingToken(LeaseKey.of("crowd" + crowd++, "s"), 1, UUID.randomUUID()));
    }
    assertThat(guard.highWaterMark(victimsOld)).as("the victim is the largest now").hasValue(5);

    for (int i = 0; i < 30; i++) {
      FencingToken stale =
          new FencingToken(LeaseKey.of("attacker", "a" + i), 1 + i, UUID.randomUUID());
      assertThatThrownBy(() -> guard.admit(stale)).isInstanceOf(StaleFenceException.class);
    }

    assertThat(guard.rememberedKeys()).isEqualTo(30);
    assertThat(guard.highWaterMark(victimsNew)).hasValue(7);
    assertThat(guard.admit(new FencingToken(victimsOld, 5, UUID.randomUUID())).previousMark())
        .as("the victim's live run is still admitted")
        .isEqualTo(5);
  }

  /**
   * Red team 47b, finding 4: three writes that each admitted 1,000 new keys of their own account
   * left a guard of {@code maxKeys(10)} with 47, 65 and then 79 keys, still 79 after 1,000 more
   * admissions outside any write. The writer's own key still stays while it writes (one key past
   * the bound), and the bound holds again once the write ends; no key's mark goes down.
   */
  @Test
  void theBoundHoldsAgainOnceAWriteThatAdmittedManyNewKeysEnds() {
    InMemoryFenceGuard guard = guardOf(10);
    for (int round = 0; round < 3; round++) {
      long base = 10_000L * (round + 1);
      LeaseKey outer = LeaseKey.of("acct", "outer" + round);
      guard.admit(new FencingToken(outer, base, UUID.randomUUID()));
      int[] most = new int[1];
      guard.runFenced(
          new FencingToken(outer, base, UUID.randomUUID()),
          () -> {
            for (int i = 0; i < 1000; i++) {
              LeaseKey inner = LeaseKey.of("acct", "inner" + base + "-" + i);
              guard.admit(new FencingToken(inner, base + 1 + i, UUID.randomUUID()));
              most[0] = Math.max(most[0], guard.rememberedKeys());
            }
            return null;
          });
      assertThat(most[0]).as("keys during write %d", round).isLessThanOrEqualTo(11);
      assertThat(guard.rememberedKeys()).as("keys after write %d", round).isEqualTo(10);
      // The writer's key was kept while it wrote; whenever forgotten, it is forgotten upwards.
      assertThatThrownBy(() -> guard.admit(new FencingToken(outer, base - 1, UUID.randomUUID())))
          .isInstanceOf(StaleFenceException.class);
    }
    for (int i = 0; i < 1000; i++) {
      guard.admit(
          new FencingToken(LeaseKey.of("acct", "later" + i), 50_000 + i, UUID.randomUUID()));
    }
    assertThat(guard.rememberedKeys()).isEqualTo(10);
  }

  /**
   * Two writes, each admitting new keys from inside its own effect, in a guard so full that each
   * must make room: neither waits for the other's key (the one it would forget is busy in a write),
   * so neither hangs, and the bound holds again once both end. Before, the room was made by taking
   * the victim's lock, and the two writes each waited for the other's forever.
   */
  @Test
  void twoWritesThatAdmitNewKeysFromInsideNeverWaitForEachOther() {
    InMemoryFenceGuard guard = guardOf(10);
    List<String> names = List.of("w1", "w2", "w3", "w4");
    CyclicBarrier inside = new CyclicBarrier(names.size());
    List<Throwable> failures = java.util.Collections.synchronizedList(new ArrayList<>());
    List<Thread> writers = new ArrayList<>();
    for (String writer : names) {
      FencingToken own = new FencingToken(LeaseKey.of(writer, "own"), 5, UUID.randomUUID());
      guard.admit(own);
      Thread t =
          new Thread(
              () -> {
                try {
                  guard.runFenced(
                      own,
                      () -> {
                        awaitAll(inside); // both writes hold their keys from here on
                        for (int i = 0; i < 2000; i++) {
                          guard.admit(
                              new FencingToken(
                                  LeaseKey.of(writer + "-n" + i, "k"), 1, UUID.randomUUID()));
                        }
                        return null;
                      });
                } catch (Throwable e) {
                  failures.add(e);
                }
              });
      t.setDaemon(true); // a hung writer must not keep the test JVM alive
      writers.add(t);
    }
    writers.forEach(Thread::start);
    assertTimeoutPreemptively(
        Duration.ofSeconds(20),
        () -> {
          for (Thread t : writers) {
            t.join();
          }
        },
        "the two writes waited for each other's key");
    assertThat(failures).isEmpty();
    assertThat(guard.rememberedKeys()).isEqualTo(10);
    // Both writers' keys, whether kept or forgotten, still bar anything below the fence they had.
    for (String writer : names) {
      assertThatThrownBy(
              () -> guard.admit(new FencingToken(LeaseKey.of(writer, "own"), 4, UUID.randomUUID())))
          .isInstanceOf(StaleFenceException.class);
    }
  }

  private static void awaitAll(CyclicBarrier barrier) {
    try {
      barrier.await();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /** Runs {@code work} on {@code threads} threads that start it together; returns when all end. */
  private static void onThreadsAtOnce(int threads, Runnable work) throws InterruptedException {
    CyclicBarrier start = new CyclicBarrier(threads);
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
                work.run();
              });
      workers.add(w);
      w.start();
    }
    for (Thread w : workers) {
      w.join();
    }
  }
}
