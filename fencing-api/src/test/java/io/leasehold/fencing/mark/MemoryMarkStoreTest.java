package io.leasehold.fencing.mark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.MarkReset;
import io.leasehold.fencing.StaleFenceException;
import java.time.Instant;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * Issue 47: the memory medium of the mark store, which the in-memory guard and the tool journals
 * share. Its eviction under load is tested through the guard ({@code InMemoryFenceGuardTest}); here
 * are the rules every user of the medium relies on.
 */
class MemoryMarkStoreTest {
  private static final LeaseKey KEY = LeaseKey.of("acct", "sess");
  private static final Instant AT = Instant.parse("2026-12-05T22:00:00Z");

  private static FencingToken token(LeaseKey key, long fence) {
    return new FencingToken(key, fence, UUID.randomUUID());
  }

  @Test
  void admitsEqualAndHigherFencesAndRefusesLowerOnesWithoutChange() {
    MemoryMarkStore marks = MemoryMarkStore.unbounded();
    assertThat(marks.read(null, KEY)).isEmpty();
    assertThat(marks.admit(null, token(KEY, 5)).previousMark()).isZero();
    assertThat(marks.admit(null, token(KEY, 5)).raisedMark()).isFalse();
    assertThatThrownBy(() -> marks.admit(null, token(KEY, 4)))
        .isInstanceOfSatisfying(
            StaleFenceException.class, e -> assertThat(e.highestFence()).isEqualTo(5));
    assertThat(marks.read(null, KEY)).hasValue(5);
  }

  @Test
  void theEffectRunsUnderTheKeysLockAndAFailedEffectKeepsTheMarkRaised() {
    MemoryMarkStore marks = MemoryMarkStore.unbounded();
    AtomicBoolean ran = new AtomicBoolean();
    assertThatThrownBy(
            () ->
                marks.admitThen(
                    token(KEY, 3),
                    admission -> {
                      ran.set(true);
                      throw new IllegalStateException("the write failed");
                    }))
        .isInstanceOf(IllegalStateException.class);
    assertThat(ran).isTrue();
    assertThat(marks.read(null, KEY)).hasValue(3);

    ran.set(false);
    assertThatThrownBy(() -> marks.admitThen(token(KEY, 2), admission -> ran.getAndSet(true)))
        .isInstanceOf(StaleFenceException.class);
    assertThat(ran).as("a refused token's effect never runs").isFalse();
  }

  @Test
  void aResetIsRecordedWithTheMarkItReplacedAndAResetToZeroKeepsTheKey() {
    MemoryMarkStore marks = MemoryMarkStore.unbounded();
    marks.admit(null, token(KEY, 9));
    MarkReset reset = marks.reset(null, KEY, 0, "ops", "incident 7", AT);

    assertThat(reset.previousMark()).isEqualTo(9);
    assertThat(marks.resets(null)).containsExactly(reset);
    assertThat(marks.read(null, KEY)).isEmpty();
    assertThat(marks.snapshot()).containsEntry(KEY, 0L);
    assertThat(marks.admit(null, token(KEY, 1)).previousMark()).isZero();
  }

  @Test
  void aJournalRestoresWhatItRecordedWithoutChecksOrNewResets() {
    MemoryMarkStore marks = MemoryMarkStore.unbounded();
    marks.restore(KEY, 7);
    marks.restore(KEY, 2); // a later line of the journal is the authority, even lower
    MarkReset recorded = new MarkReset(KEY, 2, 5, "ops", "incident 8", AT);
    marks.restore(recorded);

    assertThat(marks.read(null, KEY)).hasValue(5);
    assertThat(marks.resets(null)).containsExactly(recorded);
  }

  @Test
  void aBoundedStoreForgetsBehindAFloorSoAForgottenKeyStillRefusesItsStaleWriters() {
    MemoryMarkStore marks = MemoryMarkStore.bounded(10);
    marks.admit(null, token(KEY, 50));
    for (int i = 0; i < 10; i++) {
      // Above the floor the forgotten key leaves: a key the store does not remember starts there.
      marks.admit(null, token(LeaseKey.of("acct", "other-" + i), 60));
    }

    assertThat(marks.rememberedKeys()).isLessThanOrEqualTo(10);
    assertThat(marks.snapshot()).doesNotContainKey(KEY);
    assertThat(marks.read(null, KEY)).as("the account's floor").hasValue(50);
    assertThatThrownBy(() -> marks.admit(null, token(KEY, 49)))
        .isInstanceOf(StaleFenceException.class);
    assertThat(marks.read(null, LeaseKey.of("elsewhere", "sess")))
        .as("another account's floor")
        .isEmpty();
  }

  /**
   * Red team 47b: a refused admission of a key the store does not remember made room for that key
   * anyway, forgetting a key still in use; and keys admitted inside an effect kept the store past
   * its bound for good. A refusal now changes nothing, and the bound holds once the effect ends.
   */
  @Test
  void aRefusalOfAForgottenKeyChangesNothingAndEffectsLeaveTheBoundKept() {
    MemoryMarkStore marks = MemoryMarkStore.bounded(10);
    for (int i = 0; i < 10; i++) {
      marks.admit(null, token(LeaseKey.of("acct", "k" + i), 100 - i));
    }
    marks.admit(null, token(LeaseKey.of("acct", "k10"), 200)); // forgets k0: the floor is 100
    var before = marks.snapshot();
    AtomicBoolean ran = new AtomicBoolean();
    assertThatThrownBy(() -> marks.admit(null, token(LeaseKey.of("acct", "k0"), 99)))
        .isInstanceOf(StaleFenceException.class);
    assertThatThrownBy(
            () -> marks.admitThen(token(LeaseKey.of("acct", "k0"), 99), a -> ran.getAndSet(true)))
        .isInstanceOf(StaleFenceException.class);
    assertThat(ran).isFalse();
    assertThat(marks.snapshot()).isEqualTo(before);

    marks.admitThen(
        token(KEY, 1_000),
        admission -> {
          for (int i = 0; i < 100; i++) {
            marks.admit(null, token(LeaseKey.of("acct", "inner" + i), 1_001 + i));
          }
          return null;
        });
    assertThat(marks.rememberedKeys()).isEqualTo(10);
    assertThat(marks.read(null, KEY).orElseThrow()).isGreaterThanOrEqualTo(1_000);
  }

  @Test
  void anUnboundedStoreForgetsNothing() {
    MemoryMarkStore marks = MemoryMarkStore.unbounded();
    for (int i = 0; i < 1_000; i++) {
      marks.admit(null, token(LeaseKey.of("acct", "s" + i), i + 1));
    }
    assertThat(marks.rememberedKeys()).isEqualTo(1_000);
    assertThat(marks.snapshot()).hasSize(1_000).containsEntry(LeaseKey.of("acct", "s999"), 1_000L);
  }

  @Test
  void badArgumentsAreRefused() {
    assertThatThrownBy(() -> MemoryMarkStore.bounded(0))
        .isInstanceOf(IllegalArgumentException.class);
    MemoryMarkStore marks = MemoryMarkStore.unbounded();
    assertThatThrownBy(() -> marks.admit(null, null)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> marks.read(null, null)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> marks.restore(KEY, -1)).isInstanceOf(IllegalArgumentException.class);
  }
}
