package io.leasehold.examples.agent;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.examples.agent.AgentDemo.Framework;
import io.leasehold.examples.demo.DemoDatabases;
import io.leasehold.examples.demo.DemoOptions;
import io.leasehold.testing.TestDatabaseExtension;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The agent demo runs in the suite on each framework, fenced and not, and its verdicts are
 * asserted: the same story ends the same way on LangChain4j and on Google ADK.
 */
class AgentDemoTest {
  @RegisterExtension static final TestDatabaseExtension fencedDb = TestDatabaseExtension.empty();
  @RegisterExtension static final TestDatabaseExtension unfencedDb = TestDatabaseExtension.empty();
  @RegisterExtension static final TestDatabaseExtension adkFencedDb = TestDatabaseExtension.empty();

  @RegisterExtension
  static final TestDatabaseExtension adkUnfencedDb = TestDatabaseExtension.empty();

  /** A played demo: its verdict and what it printed. */
  private record Played(AgentDemo.Verdict verdict, String out) {}

  /** Plays the demo on {@code db}; it passes exactly when the tools are fenced. */
  private static Played play(TestDatabaseExtension db, boolean fenced, Framework framework) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    DemoOptions options = DemoDatabases.options(db.database(), "--ttl", "10s");
    AgentDemo.Verdict verdict =
        AgentDemo.run(
            options, new PrintStream(bytes, true, StandardCharsets.UTF_8), fenced, framework);
    String out = bytes.toString(StandardCharsets.UTF_8);
    assertThat(verdict.passed()).as(out).isEqualTo(fenced);
    return new Played(verdict, out);
  }

  @ParameterizedTest
  @EnumSource(Framework.class)
  void theSupersededDesktopRunIsStoppedAndNoneOfItsLaterCallsReachTheWorld(Framework framework) {
    Played played = play(framework == Framework.ADK ? adkFencedDb : fencedDb, true, framework);
    AgentDemo.Verdict verdict = played.verdict();

    assertThat(verdict.browserFence()).isGreaterThan(verdict.desktopFence());
    assertThat(verdict.desktopStopped()).contains("SUPERSEDED");
    assertThat(verdict.reachedWorld())
        .containsExactly(
            line("desktop", verdict.desktopFence(), "message", "On it: planning your Lisbon trip."),
            line("desktop", verdict.desktopFence(), "file", "plan.md: Day 1: Alfama."),
            line(
                "browser",
                verdict.browserFence(),
                "message",
                "Continuing here; your desktop stopped."),
            line("browser", verdict.browserFence(), "booking", "Ada at 19:00"),
            line(
                "browser",
                verdict.browserFence(),
                "file",
                "plan.md: Day 1: Alfama. Dinner booked, 19:00."));
    assertThat(played.out())
        .contains("tool bookTable REFUSED: SUPERSEDED")
        .doesNotContain(
            "fence 1   bookTable") // issue 27: the refused call added nothing to the journal
        .contains("refused calls add nothing to the journal")
        .contains("PASS: no call of the superseded desktop run reached the world");
  }

  @ParameterizedTest
  @EnumSource(Framework.class)
  void withoutTheFenceTheStaleBookingGetsThroughAndTheDemoFails(Framework framework) {
    Played played = play(framework == Framework.ADK ? adkUnfencedDb : unfencedDb, false, framework);

    assertThat(played.verdict().problems())
        .contains("a call of the superseded desktop run reached the world: booking Ada at 19:00");
    assertThat(played.out())
        .contains("FAIL: a call of the superseded desktop run reached the world");
  }

  private static String line(String device, long fence, String kind, String what) {
    return String.format("%-8s fence %-3d %-8s %s", device, fence, kind, what);
  }
}
