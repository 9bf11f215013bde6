package io.leasehold.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * A tiny smoke run, so the benchmarks cannot rot: every competitor of the cycle benchmark and every
 * guard benchmark runs for a moment and reports a rate. Measures nothing worth quoting.
 */
class BenchSmokeTest {
  @Test
  void everyCompetitorRuns() throws Exception {
    String report =
        BenchMain.run(
            "group=cycle,refusal,waiting,guards,toolcalls",
            "window=200ms",
            "windows=1",
            "threads=2");
    assertThat(report)
        .contains(
            "## Acquire + release, uncontended", "## Acquire + release, contended", "## Guards")
        .contains("## A refused attempt", "## Waiting acquire", "store per waiter, watcher")
        .contains("| 2 |")
        .contains("in-memory guard admit", "file write, 1 MiB", "database writer", "tool executor")
        .contains(
            "## Durable tool calls",
            "PostgreSQL (`JdbcToolJournal`)",
            "the intent committed on its own");
    assertThat(report).doesNotContain("| 0 |").doesNotContain("NaN");
  }

  @Test
  void thePeersGroupRuns() throws Exception {
    String report = BenchMain.run("group=peers", "window=200ms", "windows=1", "threads=2");
    assertThat(report)
        .contains(
            "## Leasehold as the README builds it, against ShedLock's plain provider",
            "| Leasehold, as the README builds it | acquire + release | 2.",
            "| ShedLock plain | refused |",
            "contended | 2 |");
    assertThat(report).doesNotContain("| 0 |").doesNotContain("NaN");
  }

  @Test
  void theFloodGroupRuns() throws Exception {
    String report = BenchMain.run("group=flood", "window=200ms", "windows=1");
    assertThat(report)
        .contains(
            "## Floods of forged and valid tokens",
            "forged: unknown key id",
            "replayed: expired window");
    assertThat(report).doesNotContain("| 0 |").doesNotContain("NaN");
  }

  @Test
  void theEvictionGroupRuns() throws Exception {
    String report = BenchMain.run("group=eviction", "window=200ms", "windows=1");
    assertThat(report)
        .contains(
            "## In-memory guard: admitting new keys", "| 10,000 |", "| 100,000 |", "| 1,000,000 |");
    assertThat(report).doesNotContain("NaN");
  }

  @Test
  void theCeilingGroupRuns() throws Exception {
    String report =
        BenchMain.run("group=ceiling", "keys=40,120", "window=200ms", "windows=1", "threads=1,2");
    assertThat(report)
        .contains(
            "## One primary's ceiling",
            "### Batch renewal of every live lease",
            "| 120 | this database |",
            "| 120 | 2 | this database |");
    assertThat(report).doesNotContain("NaN");
  }
}
