package io.leasehold.examples.demo;

import static io.leasehold.examples.demo.DemoDatabases.args;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.leasehold.testing.TestDatabase;
import io.leasehold.testing.TestDatabaseExtension;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** Both demos run in the suite and their verdicts are asserted, so they cannot rot. */
class DemosTest {
  @RegisterExtension static final TestDatabaseExtension staleDb = TestDatabaseExtension.empty();
  @TempDir Path dir;

  @Test
  void staleWriterDemoRefusesEveryLateWrite() throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    Path mermaid = dir.resolve("timeline.mmd");
    StaleWriterDemo.Verdict verdict =
        StaleWriterDemo.run(
            DemoOptions.parse(
                args(staleDb.database(), "--ttl", "1s", "--mermaid", mermaid.toString())),
            new PrintStream(bytes, true, StandardCharsets.UTF_8));
    String out = bytes.toString(StandardCharsets.UTF_8);
    assertThat(verdict.problems()).isEmpty();
    assertThat(verdict.passed()).isTrue();
    assertThat(verdict.staleAttempts()).isEqualTo(4);
    assertThat(verdict.staleRefused()).isEqualTo(4);
    assertThat(verdict.newerFence()).isGreaterThan(verdict.olderFence());
    assertThat(out)
        .contains(
            "BUSY", "LOST", "REFUSED   locally", "RENEW     not renewed", "RELEASE   NOT_HELD")
        .contains("VERDICT: PASS");
    assertThat(Files.readString(mermaid)).startsWith("sequenceDiagram").contains("-xR:", "REFUSED");
  }

  @Test
  void processDemoNeverExtendsTheKilledRunsWork() {
    TestDatabase db = staleDb.database();
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    boolean passed =
        ProcessDemo.run(
            DemoOptions.parse(args(db, "--ttl", "3s")),
            new PrintStream(bytes, true, StandardCharsets.UTF_8));
    String out = bytes.toString(StandardCharsets.UTF_8);
    assertThat(out).contains("KILLED with SIGKILL").contains("VERDICT: PASS");
    assertThat(passed).isTrue();
  }

  @Test
  void optionsAreCheckedWithClearErrors() {
    assertThat(DemoOptions.parse().ttl()).isEqualTo(Duration.ofSeconds(2));
    assertThat(DemoOptions.parse("--ttl", "1500ms").ttl()).isEqualTo(Duration.ofMillis(1500));
    assertThat(DemoOptions.parse("--ttl", "1m").ttl()).isEqualTo(Duration.ofMinutes(1));
    assertThat(DemoOptions.parse("--help").help()).isTrue();
    assertThatThrownBy(() -> DemoOptions.parse("--ttl", "soon"))
        .hasMessageContaining("not a duration");
    assertThatThrownBy(() -> DemoOptions.parse("--ttl", "100ms")).hasMessageContaining("between");
    assertThatThrownBy(() -> DemoOptions.parse("--frobnicate", "x"))
        .hasMessageContaining("unknown option");
    assertThatThrownBy(() -> DemoOptions.parse("--ttl")).hasMessageContaining("missing value");
  }
}
