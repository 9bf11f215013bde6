package io.leasehold.fencing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class InMemoryFenceGuardTest {
  private static final LeaseKey KEY = LeaseKey.of("acct", "sess");

  private static FencingToken token(long fence) {
    return new FencingToken(KEY, fence, UUID.randomUUID());
  }

  @Test
  void admitsEqualAndHigherRefusesLower() {
    InMemoryFenceGuard guard = new InMemoryFenceGuard();
    assertThat(guard.highWaterMark(KEY)).isEmpty();
    assertThat(guard.admit(token(5)).previousMark()).isZero();
    assertThat(guard.admit(token(5)).raisedMark()).isFalse();
    assertThat(guard.admit(token(9)).previousMark()).isEqualTo(5);
    assertThatThrownBy(() -> guard.admit(token(8)))
        .isInstanceOfSatisfying(
            StaleFenceException.class,
            e -> {
              assertThat(e.presentedFence()).isEqualTo(8);
              assertThat(e.highestFence()).isEqualTo(9);
              assertThat(e.key()).isEqualTo(KEY);
            });
    assertThat(guard.highWaterMark(KEY)).hasValue(9);
  }

  @Test
  void keysAreIndependent() {
    InMemoryFenceGuard guard = new InMemoryFenceGuard();
    guard.admit(token(100));
    LeaseKey other = LeaseKey.of("acct", "other");
    guard.admit(new FencingToken(other, 1, UUID.randomUUID()));
    assertThat(guard.highWaterMark(other)).hasValue(1);
  }

  @Test
  void lostLeaseIsRefusedBeforeTheWrite() {
    InMemoryFenceGuard guard = new InMemoryFenceGuard();
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
    InMemoryFenceGuard guard = new InMemoryFenceGuard();
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
}
