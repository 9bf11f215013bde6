package io.leasehold.examples.agent;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.examples.agent.AgentDemo.Framework;
import io.leasehold.examples.demo.DemoDatabases;
import io.leasehold.examples.demo.DemoOptions;
import io.leasehold.testing.TestDatabase;
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

  private static DemoOptions options(TestDatabase db) {
    return DemoDatabases.options(db, "--ttl", "10s");
  }

  @ParameterizedTest
  @EnumSource(Framework.class)
  void theSupersededDesktopRunIsStoppedAndNoneOfItsLaterCallsReachTheWorld(Framework framework) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    AgentDemo.Verdict verdict =
        AgentDemo.run(
            options((framework == Framework.ADK ? adkFencedDb : fencedDb).database()),
            new PrintStream(bytes, true, StandardCharsets.UTF_8),
            true,
            framework);
    String out = bytes.toString(StandardCharsets.UTF_8);

    assertThat(verdict.passed()).as(out).isTrue();
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
    assertThat(out)
        .contains("tool bookTable REFUSED: SUPERSEDED")
        .doesNotContain(
            "fence 1   bookTable") // issue 27: the refused call added nothing to the journal
        .contains("refused calls add nothing to the journal")
        .contains("PASS: no call of the superseded desktop run reached the world");
  }

  @ParameterizedTest
  @EnumSource(Framework.class)
  void withoutTheFenceTheStaleBookingGetsThroughAndTheDemoFails(Framework framework) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    AgentDemo.Verdict verdict =
        AgentDemo.run(
            options((framework == Framework.ADK ? adkUnfencedDb : unfencedDb).database()),
            new PrintStream(bytes, true, StandardCharsets.UTF_8),
            false,
            framework);
    String out = bytes.toString(StandardCharsets.UTF_8);

    assertThat(verdict.passed()).as(out).isFalse();
    assertThat(verdict.problems())
        .contains("a call of the superseded desktop run reached the world: booking Ada at 19:00");
    assertThat(out).contains("FAIL: a call of the superseded desktop run reached the world");
  }

  private static String line(String device, long fence, String kind, String what) {
    return String.format("%-8s fence %-3d %-8s %s", device, fence, kind, what);
  }
}
