package io.leasehold.adapters;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.leasehold.fencing.Fenced;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.LeaseLostException;
import io.leasehold.fencing.StaleFenceException;
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
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The guard contract (CONTRACT C9-C11, C13) every adapter must keep. Each adapter's test class
 * extends it and supplies a {@link Harness}.
 */
public abstract class FencedResourceContract {
  private static final AtomicInteger KEYS = new AtomicInteger();
  protected LeaseKey key;

  /** A fresh adapter on fresh storage. */
  protected abstract Harness harness();

  @BeforeEach
  void newKey() {
    key = LeaseKey.of("acct", getClass().getSimpleName() + "-" + KEYS.incrementAndGet());
  }

  protected FencingToken token(long fence) {
    return new FencingToken(key, fence, UUID.nameUUIDFromBytes(Long.toString(fence).getBytes()));
  }

  @Test
  void lowerFenceIsRejectedAndChangesNothing() {
    Harness h = harness();
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
    Harness h = harness();
    h.write(key, token(5), "first");
    h.write(key, token(5), "second");
    assertThat(h.value(key)).contains("second");
    assertThat(h.mark(key)).hasValue(5);
  }

  @Test
  void higherFenceIsAdmittedAndRaisesTheMark() {
    Harness h = harness();
    h.write(key, token(5), "five");
    h.write(key, token(9), "nine");
    assertThat(h.mark(key)).hasValue(9);
    assertThat(h.value(key)).contains("nine");
    assertThatThrownBy(() -> h.write(key, token(8), "eight")).isInstanceOf(StaleFenceException.class);
  }

  @Test
  void markSurvivesARestart() {
    Harness h = harness();
    h.write(key, token(7), "seven");
    Harness restarted = h.reopen();
    assertThat(restarted.mark(key)).hasValue(7);
    assertThatThrownBy(() -> restarted.write(key, token(6), "six")).isInstanceOf(StaleFenceException.class);
    assertThat(restarted.value(key)).contains("seven");
    restarted.write(key, token(7), "seven again");
    assertThat(restarted.value(key)).contains("seven again");
  }

  @Test
  void keysAreIndependent() {
    Harness h = harness();
    h.write(key, token(50), "high");
    LeaseKey other = LeaseKey.of("acct", key.sessionId() + "-other");
    h.write(other, new FencingToken(other, 1, UUID.randomUUID()), "low but other key");
    assertThat(h.value(other)).contains("low but other key");
    assertThat(h.mark(other)).hasValue(1);
  }

  @Test
  void aLeaseKnownLostIsRefusedBeforeTheResource() {
    Harness h = harness();
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
    Harness h = harness();
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
    Harness h = harness();
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
}
