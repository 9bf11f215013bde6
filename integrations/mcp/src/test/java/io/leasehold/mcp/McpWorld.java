package io.leasehold.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.leasehold.fencing.Refusal;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.ServerParameters;
import io.modelcontextprotocol.client.transport.StdioClientTransport;
import io.modelcontextprotocol.json.jackson2.JacksonMcpJsonMapper;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * What the file-writing MCP server ({@link FileMcpServerMain}) leaves in a test's directory: its
 * files under {@code world}, and a line in {@code body-runs.log} each time its tool body ran.
 */
final class McpWorld {
  private McpWorld() {}

  /**
   * A client of the file server that {@code server} starts as a child process, over stdio and
   * initialized; the Java server and the Node one alike. Closed again if initializing fails.
   */
  static McpSyncClient connect(ServerParameters server) {
    McpSyncClient client =
        McpClient.sync(
                new StdioClientTransport(server, new JacksonMcpJsonMapper(new ObjectMapper())))
            .requestTimeout(Duration.ofSeconds(60))
            .build();
    try {
      client.initialize();
    } catch (RuntimeException e) {
      client.closeGracefully();
      throw e;
    }
    return client;
  }

  /** The tool body's runs so far, in order (none before the first). */
  static List<String> bodyRuns(Path dir) throws IOException {
    Path log = dir.resolve("body-runs.log");
    return Files.exists(log) ? Files.readAllLines(log) : List.of();
  }

  /** The refusal {@code r} carries; a test failure if it is none. */
  static Refusal refusal(CallToolResult r) {
    return McpRefusal.from(r).orElseThrow(() -> new AssertionError("not a refusal: " + r));
  }

  /**
   * The desktop run's draft of the plan ran, then the browser run's plan replaced it, and the tool
   * body ran for nothing else: what each two-run story ends with.
   */
  static void assertTheBrowsersPlanFollowedTheDesktopsDraft(Path dir) throws IOException {
    assertThat(Files.readString(dir.resolve("world/acct-7/chat-1/plan.md")))
        .isEqualTo("browser plan");
    assertThat(bodyRuns(dir))
        .containsExactly(
            "acct-7/chat-1/plan.md desktop draft", "acct-7/chat-1/plan.md browser plan");
  }
}
