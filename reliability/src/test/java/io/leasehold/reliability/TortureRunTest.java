package io.leasehold.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The CI profile of the torture run, with a fixed seed and a random one (printed, to replay), and
 * the same run against a deliberately broken lease store, which the checker must catch.
 */
class TortureRunTest {
  private static TortureRun.Report run(TortureConfig config) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    TortureRun.Report report =
        TortureRun.run(config, new PrintStream(bytes, true, StandardCharsets.UTF_8));
    System.out.println(bytes.toString(StandardCharsets.UTF_8));
    return report;
  }

  private static TortureConfig ci(long seed, boolean broken) {
    TortureConfig c = TortureConfig.ci(seed);
    return new TortureConfig(
        seed,
        Duration.ofSeconds(25),
        c.threads(),
        c.processes(),
        c.workersPerProcess(),
        c.keys(),
        c.ttl(),
        c.faults(),
        broken,
        Optional.empty());
  }

  private static void assertClean(TortureRun.Report r) {
    assertThat(r.violations()).as("violations with seed %d", r.config().seed()).isEmpty();
    assertThat(r.faults().keySet())
        .as("fault kinds injected")
        .containsAll(Set.of("pause", "kill", "conn", "lock", "restart"));
    assertThat(r.counts().getOrDefault("ACQUIRE OK", 0)).isGreaterThan(20);
    assertThat(r.counts().getOrDefault("WRITE OK", 0)).isGreaterThan(50);
    assertThat(r.counts().getOrDefault("LIVENESS OK", 0)).isEqualTo(r.config().keys());
  }

  @Test
  void fixedSeed() {
    assertClean(run(ci(20261201L, false)));
  }

  @Test
  void randomSeed() {
    long seed = System.nanoTime();
    System.out.println("random seed " + seed);
    assertClean(run(ci(seed, false)));
  }

  @Test
  void theCheckerCatchesABrokenLeaseStore() {
    TortureRun.Report r = run(ci(7L, true));
    assertThat(r.violations()).as("a release by key only must be caught").isNotEmpty();
    assertThat(r.violations()).extracting(Checker.Violation::rule).containsAnyOf("C1", "C4");
  }
}
