package io.leasehold.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.fencing.LeaseKey;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * CONTRACT C11 for guards that persist state: two separate JVMs write one key through the guard
 * with interleaved fences. Implement it next to {@link FenceGuardContract} (it is an interface of
 * default tests) and say how another JVM opens the same guard.
 */
public interface CrossProcessGuardContract {
  /** Writes per thread in each child (two threads per child, two children). */
  int WRITES_PER_THREAD = 60;

  /**
   * The factory the child JVMs open the guard with.
   *
   * @return a public class with a public no-argument constructor
   */
  Class<? extends GuardHarnessFactory> harnessFactory();

  /**
   * Fresh storage for one test, as the factory understands it.
   *
   * @return the storage description
   */
  String sharedStorage();

  /**
   * The two JVMs' admissions never go down in the guard's log, it admitted exactly what the
   * processes were told was admitted, both processes got writes in and were refused some, and the
   * final mark (and value, where it follows) belongs to the highest fence.
   *
   * @throws Exception if a child cannot be run
   */
  @Test
  default void twoJvmsWritingOneKeyNeverAdmitAStaleWrite() throws Exception {
    String storage = sharedStorage();
    LeaseKey key = LeaseKey.of("two-jvms", "key-" + UUID.randomUUID());
    int admitted = 0;
    long max = 0;
    try (ChildJvm odd = start(storage, key, 0);
        ChildJvm even = start(storage, key, 1)) {
      odd.awaitLine("READY", 60);
      even.awaitLine("READY", 60);
      odd.send("GO");
      even.send("GO");
      for (ChildJvm child : List.of(odd, even)) {
        String[] done = child.awaitLine("DONE ", 120).split(" ");
        admitted += Integer.parseInt(done[1]);
        max = Math.max(max, Long.parseLong(done[3]));
        assertThat(Integer.parseInt(done[1]) + Integer.parseInt(done[2]))
            .isEqualTo(2 * WRITES_PER_THREAD);
        assertThat(child.awaitExit(30)).isZero();
      }
    }
    GuardHarness h = harnessFactory().getDeclaredConstructor().newInstance().open(storage);
    List<Long> log = h.admittedFences(key);
    assertThat(log).hasSize(admitted);
    for (int i = 1; i < log.size(); i++) {
      assertThat(log.get(i)).as("admission #%d", i).isGreaterThanOrEqualTo(log.get(i - 1));
    }
    assertThat(log).anyMatch(f -> f % 2 == 0).anyMatch(f -> f % 2 == 1);
    assertThat(admitted).isLessThan(4 * WRITES_PER_THREAD);
    assertThat(h.mark(key)).hasValue(max);
    if (h.finalValueFollowsHighestFence()) {
      assertThat(Long.parseLong(h.value(key).orElseThrow().split(":")[0])).isEqualTo(max);
    }
  }

  private ChildJvm start(String storage, LeaseKey key, int parity) throws Exception {
    return ChildJvm.start(
        TwoProcessWriterMain.class,
        harnessFactory().getName(),
        storage,
        key.accountId(),
        key.sessionId(),
        Integer.toString(parity),
        Integer.toString(WRITES_PER_THREAD));
  }
}
