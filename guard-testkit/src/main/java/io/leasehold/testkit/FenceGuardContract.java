package io.leasehold.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.leasehold.fencing.AdminDeniedException;
import io.leasehold.fencing.Fenced;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.LeaseLostException;
import io.leasehold.fencing.MarkReset;
import io.leasehold.fencing.SignatureScheme;
import io.leasehold.fencing.SigningKey;
import io.leasehold.fencing.StaleFenceException;
import io.leasehold.fencing.TokenKeySet;
import io.leasehold.fencing.TokenSignature;
import io.leasehold.fencing.TokenVerificationException;
import io.leasehold.fencing.TokenVerifier;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The guard contract every guard must keep (CONTRACT C9-C11, C13, C15, C17), as a JUnit 5 base
 * class: extend it, implement {@link #harness(TokenVerifier)} over your guard, and run it with your
 * tests. Leasehold's own guards (the file store, the tool executor, the database writer in both
 * modes, the in-memory guard) run exactly this suite.
 *
 * <pre>{@code
 * class MyGuardContractTest extends FenceGuardContract {
 *   protected GuardHarness harness(TokenVerifier verifier) {
 *     return new MyGuardHarness(MyGuard.builder().verifier(verifier).build());
 *   }
 * }
 * }</pre>
 *
 * <p>What it checks: lower fences refused with both fences named and nothing changed, equal ones
 * admitted, marks raised and kept across a restart, keys independent, odd key text handled, a lease
 * known lost refused before the resource, null refused, no stale write admitted under contention
 * (six threads); forged tokens (unsigned, wrong key, tampered fence, unknown key id, {@code
 * Long.MAX_VALUE}) refused before the mark is touched, with HMAC and Ed25519; key rotation without
 * downtime; and the audited mark reset, for administrators only ({@code "ops"} must be an
 * administrator of the harness's guard).
 */
public abstract class FenceGuardContract {
  private static final AtomicInteger KEYS = new AtomicInteger();

  /** The key of the current test; a fresh one per test. */
  protected LeaseKey key;

  /** Creates the suite. */
  protected FenceGuardContract() {}

  /**
   * A fresh guard on fresh storage, verifying tokens with {@code verifier}, with {@code "ops"} as
   * an administrator.
   *
   * @param verifier the verification to build the guard with
   * @return the harness
   */
  protected abstract GuardHarness harness(TokenVerifier verifier);

  /**
   * A fresh guard that trusts every writer.
   *
   * @return the harness
   */
  protected GuardHarness harness() {
    return harness(TokenVerifier.trustEveryWriter());
  }

  /** A fresh key for each test. */
  @BeforeEach
  void newKey() {
    key = LeaseKey.of("acct", getClass().getSimpleName() + "-" + KEYS.incrementAndGet());
  }

  /**
   * An unsigned token of the current key, with a run id derived from the fence.
   *
   * @param fence the fence
   * @return the token
   */
  protected FencingToken token(long fence) {
    return new FencingToken(key, fence, UUID.nameUUIDFromBytes(Long.toString(fence).getBytes()));
  }

  @Test
  void lowerFenceIsRejectedAndChangesNothing() {
    GuardHarness h = harness();
    h.write(key, token(5), "five");
    assertThatThrownBy(() -> h.write(key, token(3), "three"))
        .isInstanceOfSatisfying(
            StaleFenceException.class,
            e -> {
              assertThat(e.presentedFence()).isEqualTo(3);
              assertThat(e.highestFence()).isEqualTo(5);
              assertThat(e.key()).isEqualTo(key);
            });
    assertThat(h.value(key)).contains("five");
    assertThat(h.mark(key)).hasValue(5);
    assertThat(h.admittedFences(key)).containsExactly(5L);
  }

  @Test
  void equalFenceIsAdmitted() {
    GuardHarness h = harness();
    h.write(key, token(5), "first");
    assertAdmitted(h, 5, "second");
    assertThat(h.mark(key)).hasValue(5);
  }

  @Test
  void higherFenceIsAdmittedAndRaisesTheMark() {
    GuardHarness h = harness();
    h.write(key, token(5), "five");
    h.write(key, token(9), "nine");
    assertThat(h.mark(key)).hasValue(9);
    assertThat(h.value(key)).contains("nine");
    assertRefusedAsStale(h, 8);
  }

  @Test
  void markSurvivesARestart() {
    GuardHarness h = harness();
    h.write(key, token(7), "seven");
    GuardHarness restarted = h.reopen();
    assertThat(restarted.mark(key)).hasValue(7);
    assertRefusedAsStale(restarted, 6);
    assertThat(restarted.value(key)).contains("seven");
    assertAdmitted(restarted, 7, "seven again");
  }

  @Test
  void keysAreIndependent() {
    GuardHarness h = harness();
    h.write(key, token(50), "high");
    LeaseKey other = LeaseKey.of("acct", key.sessionId() + "-other");
    h.write(other, new FencingToken(other, 1, UUID.randomUUID()), "low but other key");
    assertThat(h.value(other)).contains("low but other key");
    assertThat(h.mark(other)).hasValue(1);
  }

  /**
   * Key text a guard must not confuse: path-like, dotted, percent and unicode text, the longest
   * keys allowed, and two keys whose parts join to the same string. Each key keeps its own mark.
   */
  @Test
  void oddKeysKeepTheirOwnMarks() {
    GuardHarness h = harness();
    String longest = "\u00e9".repeat(LeaseKey.MAX_LENGTH);
    List<LeaseKey> odd =
        List.of(
            LeaseKey.of("acct", "../" + key.sessionId()),
            LeaseKey.of("acct", key.sessionId() + "/x"),
            LeaseKey.of("acct/" + key.sessionId(), "x"),
            LeaseKey.of("acct", key.sessionId() + "%2e%2e"),
            LeaseKey.of("acct", key.sessionId() + " \u2603 \uD83D\uDE00"),
            LeaseKey.of(
                longest,
                longest.substring(0, LeaseKey.MAX_LENGTH - key.sessionId().length())
                    + key.sessionId()),
            LeaseKey.of("a.b", key.sessionId() + ".c"),
            LeaseKey.of("a", "b." + key.sessionId() + ".c"));
    long fence = 100;
    for (LeaseKey k : odd) {
      h.write(k, new FencingToken(k, fence, UUID.randomUUID()), "v" + fence);
      fence += 100;
    }
    fence = 100;
    for (LeaseKey k : odd) {
      assertThat(h.mark(k)).as("mark of %s", k).hasValue(fence);
      assertThat(h.value(k)).as("value of %s", k).contains("v" + fence);
      long stale = fence - 1;
      assertThatThrownBy(() -> h.write(k, new FencingToken(k, stale, UUID.randomUUID()), "stale"))
          .isInstanceOf(StaleFenceException.class);
      fence += 100;
    }
  }

  @Test
  void aLeaseKnownLostIsRefusedBeforeTheResource() {
    GuardHarness h = harness();
    h.write(key, token(2), "two");
    FencingToken lostToken = token(4);
    Fenced lost =
        () -> {
          throw new LeaseLostException(lostToken, "test");
        };
    assertThatThrownBy(() -> h.write(key, lost, "four")).isInstanceOf(LeaseLostException.class);
    assertThat(h.value(key)).contains("two");
    assertThat(h.mark(key)).hasValue(2);
  }

  @Test
  void nullTokenIsAClearError() {
    GuardHarness h = harness();
    assertThatThrownBy(() -> h.write(key, null, "x")).isInstanceOf(IllegalArgumentException.class);
    assertThat(h.mark(key)).isEmpty();
  }

  /**
   * Many threads write with interleaved, slowly rising fences. In the adapter's own log of
   * admissions the fences never decrease, every refusal named a higher mark, and the final value
   * comes from a write of the highest admitted fence.
   */
  @Test
  void noStaleWriteIsAdmittedUnderContention() throws Exception {
    GuardHarness h = harness();
    int threads = 6;
    int writesPerThread = 40;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    CyclicBarrier start = new CyclicBarrier(threads);
    List<Future<List<long[]>>> futures = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int thread = t;
      futures.add(
          pool.submit(
              () -> {
                start.await();
                List<long[]> admitted = new ArrayList<>();
                for (int i = 0; i < writesPerThread; i++) {
                  long fence = 1 + i + ThreadLocalRandom.current().nextInt(8);
                  try {
                    h.write(key, token(fence), fence + ":" + thread + ":" + i);
                    admitted.add(new long[] {fence});
                  } catch (StaleFenceException e) {
                    assertThat(e.highestFence()).isGreaterThan(fence);
                  }
                }
                return admitted;
              }));
    }
    long highest = 0;
    int admittedCount = 0;
    for (Future<List<long[]>> f : futures) {
      for (long[] a : f.get(120, TimeUnit.SECONDS)) {
        highest = Math.max(highest, a[0]);
        admittedCount++;
      }
    }
    pool.shutdown();
    List<Long> log = h.admittedFences(key);
    assertThat(log).hasSize(admittedCount);
    for (int i = 1; i < log.size(); i++) {
      assertThat(log.get(i)).as("admission #%d", i).isGreaterThanOrEqualTo(log.get(i - 1));
    }
    assertThat(log.get(log.size() - 1)).isEqualTo(highest);
    assertThat(h.mark(key)).hasValue(highest);
    if (h.finalValueFollowsHighestFence()) {
      Optional<String> value = h.value(key);
      assertThat(value).isPresent();
      assertThat(Long.parseLong(value.get().split(":")[0])).isEqualTo(highest);
    }
  }

  // ------------------------------------------------------------------ admission without a write

  /**
   * Issue 26: the guard type. {@link io.leasehold.fencing.FenceGuard#admit} alone raises the mark
   * (a new run shutting older ones out before its first write), refuses a lower fence with the mark
   * unchanged, and admits the same fence again.
   */
  @Test
  void admitAloneRaisesTheMarkAndShutsOlderRunsOut() {
    GuardHarness h = harness();
    h.write(key, token(3), "three");
    io.leasehold.fencing.Admission admitted = h.guard().admit(token(5));
    assertThat(admitted.previousMark()).isEqualTo(3);
    assertThat(admitted.raisedMark()).isTrue();
    assertThat(h.mark(key)).hasValue(5);
    assertThat(h.guard().highWaterMark(key)).hasValue(5);
    assertThatThrownBy(() -> h.write(key, token(4), "four"))
        .isInstanceOfSatisfying(
            StaleFenceException.class, e -> assertThat(e.highestFence()).isEqualTo(5));
    assertThatThrownBy(() -> h.guard().admit(token(4))).isInstanceOf(StaleFenceException.class);
    assertThat(h.guard().admit(token(5)).raisedMark()).isFalse();
    assertThat(h.value(key)).contains("three");
    assertThat(h.reopen().mark(key)).hasValue(5);
    assertAdmitted(h, 5, "five");
  }

  /**
   * Admission alone refuses what a write refuses, before the mark: lost leases, forgeries, null.
   */
  @Test
  void admitAloneRefusesLostLeasesForgeriesAndNullWithTheMarkUnchanged() {
    SigningKey store = SigningKey.generate(SignatureScheme.HMAC_SHA256, "store-1");
    GuardHarness h = harness(TokenVerifier.signedBy(TokenKeySet.of(store.verificationKey())));
    h.guard().admit(store.sign(token(2), Clock.systemUTC(), Duration.ofMinutes(5)));
    FencingToken lostToken = store.sign(token(4), Clock.systemUTC(), Duration.ofMinutes(5));
    Fenced lost =
        () -> {
          throw new LeaseLostException(lostToken, "test");
        };
    assertThatThrownBy(() -> h.guard().admit(lost)).isInstanceOf(LeaseLostException.class);
    assertThatThrownBy(() -> h.guard().admit(token(9)))
        .isInstanceOfSatisfying(
            TokenVerificationException.class,
            e -> assertThat(e.reason()).isEqualTo(TokenVerificationException.Reason.UNSIGNED));
    assertThatThrownBy(() -> h.guard().admit(null)).isInstanceOf(IllegalArgumentException.class);
    assertThat(h.mark(key)).hasValue(2);
  }

  // ------------------------------------------------------------------ C15: authentic tokens

  /** Asserts that a write with {@code forged} is refused by verification and changes nothing. */
  private void assertUnverified(
      GuardHarness h, FencingToken forged, TokenVerificationException.Reason reason) {
    Optional<String> before = h.value(key);
    java.util.OptionalLong markBefore = h.mark(key);
    List<Long> logBefore = h.admittedFences(key);
    assertThatThrownBy(() -> h.write(key, forged, "forged"))
        .as("forged token %s", forged)
        .isInstanceOfSatisfying(
            TokenVerificationException.class, e -> assertThat(e.reason()).isEqualTo(reason));
    assertThat(h.value(key)).isEqualTo(before);
    assertThat(h.mark(key)).isEqualTo(markBefore);
    assertThat(h.admittedFences(key)).isEqualTo(logBefore);
  }

  /**
   * Issue 12: a token with fence Long.MAX_VALUE for a key the attacker never held was admitted and
   * locked every honest run out. With signatures required, every forgery is refused before the mark
   * is touched, and honest runs go on.
   */
  @ParameterizedTest
  @EnumSource(SignatureScheme.class)
  void forgedTokensAreRefusedWithTheMarkUnchanged(SignatureScheme scheme) {
    SigningKey store = SigningKey.generate(scheme, "store-1");
    GuardHarness h = harness(TokenVerifier.signedBy(TokenKeySet.of(store.verificationKey())));
    h.write(key, store.sign(token(5), Clock.systemUTC(), Duration.ofMinutes(5)), "five");

    assertUnverified(h, token(Long.MAX_VALUE), TokenVerificationException.Reason.UNSIGNED);
    assertUnverified(h, token(6), TokenVerificationException.Reason.UNSIGNED);
    assertUnverified(
        h,
        SigningKey.generate(scheme, "store-1")
            .sign(token(Long.MAX_VALUE), Clock.systemUTC(), Duration.ofMinutes(5)),
        TokenVerificationException.Reason.BAD_SIGNATURE);
    TokenSignature honest =
        store.sign(token(6), Clock.systemUTC(), Duration.ofMinutes(5)).signature().orElseThrow();
    assertUnverified(
        h,
        new FencingToken(key, Long.MAX_VALUE, token(6).runId(), Optional.of(honest)),
        TokenVerificationException.Reason.BAD_SIGNATURE);
    assertUnverified(
        h,
        SigningKey.generate(scheme, "store-9")
            .sign(token(Long.MAX_VALUE), Clock.systemUTC(), Duration.ofMinutes(5)),
        TokenVerificationException.Reason.UNKNOWN_KEY);

    h.write(key, store.sign(token(6), Clock.systemUTC(), Duration.ofMinutes(5)), "six");
    assertThat(h.value(key)).contains("six");
    assertThat(h.mark(key)).hasValue(6);
  }

  /** Key rotation: sign with the new key, verify old and new, retire the old. */
  @Test
  void keysRotateWithoutDowntime() {
    SigningKey old = SigningKey.generate(SignatureScheme.ED25519, "old");
    AtomicReference<TokenKeySet> keys =
        new AtomicReference<>(TokenKeySet.of(old.verificationKey()));
    GuardHarness h = harness(TokenVerifier.signedBy(keys::get));
    FencingToken oldRun = old.sign(token(3), Clock.systemUTC(), Duration.ofMinutes(5));
    h.write(key, oldRun, "old key");

    SigningKey fresh = SigningKey.generate(SignatureScheme.ED25519, "new");
    keys.set(keys.get().with(fresh.verificationKey()));
    h.write(key, oldRun, "old key, still verified");
    h.write(key, fresh.sign(token(4), Clock.systemUTC(), Duration.ofMinutes(5)), "new key");

    keys.set(keys.get().without("old"));
    assertUnverified(h, oldRun, TokenVerificationException.Reason.UNKNOWN_KEY);
    h.write(key, fresh.sign(token(4), Clock.systemUTC(), Duration.ofMinutes(5)), "new key again");
    assertThat(h.value(key)).contains("new key again");
  }

  // ------------------------------------------------------------------ C17: audited recovery

  /** The recovery after a forged token raised the mark: administrators only, and recorded. */
  @Test
  void aMarkResetIsForAdministratorsAndLeavesAnAuditRecord() {
    GuardHarness h = harness();
    h.write(key, token(Long.MAX_VALUE), "forged");
    assertRefusedAsStale(h, 7);
    int resetsBefore = h.markResets().size();

    assertThatThrownBy(() -> h.resetMark(key, 6, "mallory", "let me in"))
        .isInstanceOf(AdminDeniedException.class);
    assertThatThrownBy(() -> h.resetMark(key, -1, "ops", "bad"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> h.resetMark(key, 6, "ops", ""))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(h.mark(key)).hasValue(Long.MAX_VALUE);
    assertThat(h.markResets()).hasSize(resetsBefore);

    MarkReset reset = h.resetMark(key, 6, "ops", "forged token, incident 7");
    assertThat(reset.previousMark()).isEqualTo(Long.MAX_VALUE);
    assertThat(reset.newMark()).isEqualTo(6);
    assertThat(h.mark(key)).hasValue(6);
    List<MarkReset> recorded = h.markResets();
    assertThat(recorded).hasSize(resetsBefore + 1);
    MarkReset last = recorded.get(recorded.size() - 1);
    assertThat(last.key()).isEqualTo(key);
    assertThat(last.operator()).isEqualTo("ops");
    assertThat(last.reason()).isEqualTo("forged token, incident 7");
    assertThat(last.previousMark()).isEqualTo(Long.MAX_VALUE);
    assertThat(h.reopen().mark(key)).hasValue(6);

    assertRefusedAsStale(h, 5);
    assertAdmitted(h, 7, "honest");
  }

  /**
   * Issue 46, item 11: a reset to 0 forgets the key's fence, so its next run is admitted whatever
   * its fence, also where the key already wrote (the file store refused that run "mark is
   * missing"), and after a restart.
   */
  @Test
  void aResetToZeroAdmitsTheNextRunWhereTheKeyAlreadyWrote() {
    GuardHarness h = harness();
    h.write(key, token(40), "forged");
    MarkReset reset = h.resetMark(key, 0, "ops", "forged token, the true fence is unknown");
    assertThat(reset.previousMark()).isEqualTo(40);
    assertThat(h.mark(key)).isEmpty();
    assertAdmitted(h, 3, "honest");
    assertThat(h.mark(key)).hasValue(3);

    h.resetMark(key, 0, "ops", "again, then a restart");
    GuardHarness reopened = h.reopen();
    assertThat(reopened.mark(key)).isEmpty();
    assertAdmitted(reopened, 2, "after the restart");
    assertRefusedAsStale(reopened, 1);
  }

  /**
   * Asserts that {@code h} admits a write of the test's key at {@code fence}, and reads it back.
   */
  private void assertAdmitted(GuardHarness h, long fence, String content) {
    h.write(key, token(fence), content);
    assertThat(h.value(key)).contains(content);
  }

  /**
   * Asserts that {@code h} refuses a write of the test's key at {@code fence} as stale and keeps
   * the value it had (CONTRACT C9).
   */
  private void assertRefusedAsStale(GuardHarness h, long fence) {
    Optional<String> before = h.value(key);
    assertThatThrownBy(() -> h.write(key, token(fence), "stale at " + fence))
        .isInstanceOf(StaleFenceException.class);
    assertThat(h.value(key)).isEqualTo(before);
  }
}
