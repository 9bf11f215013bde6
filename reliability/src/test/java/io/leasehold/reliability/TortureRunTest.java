package io.leasehold.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The CI profile of the torture run, with a fixed seed and a random one (printed, to replay), and
 * the same run against a deliberately broken lease store, which the checker must catch.
 *
 * <p>The three runs start together, each on its own embedded PostgreSQL with its own worker JVMs: a
 * run spends its time waiting for its fault schedule, not computing, so together they take about
 * the time of one (CPU contention is one more fault). Each test asserts on its run's report.
 */
class TortureRunTest {
  private static CompletableFuture<TortureRun.Report> fixedSeed;
  private static CompletableFuture<TortureRun.Report> randomSeed;
  private static CompletableFuture<TortureRun.Report> broken;

  @BeforeAll
  static void startTheThreeRuns() {
    long seed = System.nanoTime();
    System.out.println("random seed " + seed);
    fixedSeed = start(ci(20261201L, false));
    randomSeed = start(ci(seed, false));
    broken = start(ci(7L, true));
  }

  /**
   * Waits until every run has ended and stopped its server and worker JVMs, also when a filter ran
   * only some of the tests. A run's failure is reported by its own test, which joins it.
   */
  @AfterAll
  static void awaitTheThreeRuns() {
    CompletableFuture.allOf(fixedSeed, randomSeed, broken).handle((done, failure) -> done).join();
  }

  /** The run of {@code config} in a thread of its own; its log printed when it ends. */
  private static CompletableFuture<TortureRun.Report> start(TortureConfig config) {
    return CompletableFuture.supplyAsync(
        () -> {
          ByteArrayOutputStream bytes = new ByteArrayOutputStream();
          try {
            return TortureRun.run(config, new PrintStream(bytes, true, StandardCharsets.UTF_8));
          } finally {
            System.out.println(bytes.toString(StandardCharsets.UTF_8));
          }
        },
        r -> new Thread(r, "torture-test-seed-" + config.seed()).start());
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
    assertClean(fixedSeed.join());
  }

  @Test
  void randomSeed() {
    assertClean(randomSeed.join());
  }

  @Test
  void theCheckerCatchesABrokenLeaseStore() {
    TortureRun.Report r = broken.join();
    assertThat(r.violations()).as("a release by key only must be caught").isNotEmpty();
    assertThat(r.violations()).extracting(Checker.Violation::rule).containsAnyOf("C1", "C4");
  }
}
