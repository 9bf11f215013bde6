package io.leasehold.examples.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.examples.demo.DemoDatabases;
import io.leasehold.testing.TestDatabase;
import io.leasehold.testing.TestDatabaseExtension;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The MCP demo runs in the suite: its server is a real child process, and its verdict holds. */
class McpDemoTest {
  @RegisterExtension static final TestDatabaseExtension db = TestDatabaseExtension.empty();

  @Test
  void theSupersededDesktopCallIsRefusedByTheServerAndTheFileHoldsTheBrowsersWords() {
    TestDatabase d = db.database();
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    McpDemo.Verdict verdict =
        McpDemo.run(
            DemoDatabases.options(d, "--ttl", "10s"),
            new PrintStream(bytes, true, StandardCharsets.UTF_8));
    String out = bytes.toString(StandardCharsets.UTF_8);
    assertThat(verdict.passed()).as(out).isTrue();
    assertThat(out)
        .contains(
            "desktop (fence 1): write \"desktop: add a day trip to Sintra\" -> REFUSED SUPERSEDED by the server")
        .contains(
            "desktop (fence 1): write \"desktop: book the train\" -> REFUSED SUPERSEDED, locally")
        .contains("world: acct-7/chat-1/plan.md = \"browser: 2 days in Lisbon\"");
  }
}
