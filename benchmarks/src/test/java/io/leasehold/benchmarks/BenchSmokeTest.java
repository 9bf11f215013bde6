package io.leasehold.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A tiny smoke run, so the benchmarks cannot rot: every competitor of the cycle benchmark and every
 * guard benchmark runs for a moment and reports a rate. Measures nothing worth quoting: one window
 * of {@value #WINDOW} (after its warm-up window) is enough to prove each cell runs and reports a
 * rate above zero.
 */
class BenchSmokeTest {
  private static final String WINDOW = "100ms";

  /**
   * The report of {@code groups} run for one {@link #WINDOW} window, {@code more} options added.
   */
  private static String smokeRun(String groups, String... more) throws Exception {
    List<String> args =
        new ArrayList<>(List.of("group=" + groups, "window=" + WINDOW, "windows=1"));
    args.addAll(List.of(more));
    String report = BenchMain.run(args.toArray(String[]::new));
    assertThat(report).doesNotContain("NaN");
    return report;
  }

  /**
   * One run of the groups the first four tests read, in the order a full run takes them, on one
   * server (each run of its own would start and set up a server of its own): made by the first of
   * those tests, read by each.
   */
  private static String groupsRun;

  private static synchronized String groupsRun() throws Exception {
    if (groupsRun == null) {
      groupsRun =
          smokeRun("cycle,peers,refusal,waiting,guards,flood,eviction,toolcalls", "threads=2");
    }
    return groupsRun;
  }

  @Test
  void everyCompetitorRuns() throws Exception {
    String report = groupsRun();
    assertThat(report)
        .contains(
            "## Acquire + release, uncontended", "## Acquire + release, contended", "## Guards")
        .contains("## A refused attempt", "## Waiting acquire", "store per waiter, watcher")
        // A row of the cycle and refusal tables for 2 threads (the peers' rows start otherwise).
        .contains("\n| 2 | ")
        .contains("in-memory guard admit", "file write, 1 MiB", "database writer", "tool executor")
        .contains(
            "## Durable tool calls",
            "PostgreSQL (`JdbcToolJournal`)",
            "the intent committed on its own");
    assertThat(report).doesNotContain("| 0 |");
  }

  @Test
  void thePeersGroupRuns() throws Exception {
    assertThat(groupsRun())
        .contains(
            "## Leasehold as the README builds it, against ShedLock's plain provider",
            "| Leasehold, as the README builds it | acquire + release | 2.",
            "| ShedLock plain | refused |",
            "contended | 2 |")
        .doesNotContain("| 0 |");
  }

  @Test
  void theFloodGroupRuns() throws Exception {
    assertThat(groupsRun())
        .contains(
            "## Floods of forged and valid tokens",
            "forged: unknown key id",
            "replayed: expired window")
        .doesNotContain("| 0 |");
  }

  @Test
  void theEvictionGroupRuns() throws Exception {
    assertThat(groupsRun())
        .contains(
            "## In-memory guard: admitting new keys", "| 10,000 |", "| 100,000 |", "| 1,000,000 |");
  }

  @Test
  void theCeilingGroupRuns() throws Exception {
    String report =
        BenchMain.run(
            "group=ceiling", "keys=40,120", "window=" + WINDOW, "windows=1", "threads=1,2");
    assertThat(report)
        .contains(
            "## One primary's ceiling",
            "### Batch renewal of every live lease",
            "| 120 | this database |",
            "| 120 | 2 | this database |");
    assertThat(report).doesNotContain("NaN");
  }

  @Test
  void theCeilingGroupRenewsLeasesItInserted() throws Exception {
    String report =
        BenchMain.run(
            "group=ceiling",
            "keys=30,25000",
            "window=" + WINDOW,
            "windows=1",
            "threads=none",
            "held=insert");
    // 25,000 leases: three renewal statements, two at once, each renewing only rows it names.
    assertThat(report)
        .contains(
            "made by one set-based insert per 50,000",
            "24,970 leases inserted (one thread)",
            "| 25,000 | this database |")
        .doesNotContain("### Acquire + release cycles", "NaN");
  }
}
