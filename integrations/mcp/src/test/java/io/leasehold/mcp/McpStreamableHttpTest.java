package io.leasehold.mcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.leasehold.adapters.agent.RunStoppedException;
import io.leasehold.adapters.tool.FencedToolExecutor;
import io.leasehold.adapters.tool.FileToolJournal;
import io.leasehold.adapters.tool.ToolScope;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.Refusal;
import io.leasehold.fencing.SignatureScheme;
import io.leasehold.fencing.SigningKey;
import io.leasehold.fencing.TokenKeySet;
import io.leasehold.fencing.TokenVerifier;
import io.modelcontextprotocol.client.McpAsyncClient;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.jackson2.JacksonMcpJsonMapper;
import io.modelcontextprotocol.server.McpAsyncServer;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpServerFeatures.AsyncToolSpecification;
import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.server.transport.HttpServletStreamableServerTransportProvider;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.publisher.Mono;

/**
 * Issue 28 over streamable HTTP on loopback: the SDK's servlet transport on an embedded Jetty, with
 * the async tool specification fenced, called through the async client.
 */
class McpStreamableHttpTest {
  private static final LeaseKey SESSION = LeaseKey.of("acct-7", "chat-1");
  private final SigningKey signing = SigningKey.generate(SignatureScheme.HMAC_SHA256, "store-1");
  private final McpJsonMapper mapper = new JacksonMcpJsonMapper(new ObjectMapper());
  @TempDir Path dir;
  private LoopbackJetty jetty;
  private McpAsyncServer mcpServer;
  private McpAsyncClient client;

  @AfterEach
  void stop() throws Exception {
    if (client != null) {
      client.closeGracefully().block(Duration.ofSeconds(10));
    }
    if (mcpServer != null) {
      mcpServer.closeGracefully().block(Duration.ofSeconds(10));
    }
    if (jetty != null) {
      jetty.close();
    }
  }

  private McpAsyncClient start() throws Exception {
    HttpServletStreamableServerTransportProvider transport = LoopbackJetty.serverTransport(mapper);
    FencedToolExecutor executor =
        FencedToolExecutor.builder()
            .verifier(TokenVerifier.signedBy(TokenKeySet.of(signing.verificationKey())))
            .journal(FileToolJournal.open(dir.resolve("tools.jsonl")))
            .scope(ToolScope.argumentUnderKey("path"))
            .build();
    SyncToolSpecification sync = FileMcpServerMain.writeFile(dir.resolve("world"), mapper);
    AsyncToolSpecification async =
        AsyncToolSpecification.builder()
            .tool(sync.tool())
            .callHandler(
                (exchange, request) ->
                    Mono.fromCallable(() -> sync.callHandler().apply(null, request)))
            .build();
    mcpServer =
        McpServer.async(transport)
            .serverInfo("leasehold-files", "1")
            .capabilities(LoopbackJetty.TOOLS)
            .tools(McpToolFence.builder(executor).build().fence(async))
            .build();
    jetty = new LoopbackJetty(transport);
    client = jetty.asyncClient(mapper);
    return client;
  }

  private FencingToken token(long fence) {
    return signing.sign(
        new FencingToken(SESSION, fence, UUID.randomUUID()),
        Clock.systemUTC(),
        Duration.ofMinutes(5));
  }

  private static CallToolRequest write(String path, String content) {
    return CallToolRequest.builder("write_file")
        .arguments(Map.of("path", path, "content", content))
        .build();
  }

  @Test
  void theSupersededRunIsRefusedOverHttpAndItsCallNeverRuns() throws Exception {
    McpAsyncClient mcp = start();
    McpRunFence desktop = McpRunFence.of(token(1));
    McpRunFence browser = McpRunFence.of(token(2));
    desktop
        .callTool(mcp, write("acct-7/chat-1/plan.md", "desktop draft"))
        .block(Duration.ofSeconds(30));
    browser
        .callTool(mcp, write("acct-7/chat-1/plan.md", "browser plan"))
        .block(Duration.ofSeconds(30));
    assertThatThrownBy(
            () ->
                desktop
                    .callTool(mcp, write("acct-7/chat-1/plan.md", "desktop late"))
                    .block(Duration.ofSeconds(30)))
        .isInstanceOfSatisfying(
            RunStoppedException.class,
            e -> assertThat(e.stop().reason()).isEqualTo(Refusal.Reason.SUPERSEDED));
    McpWorld.assertTheBrowsersPlanFollowedTheDesktopsDraft(dir);
  }

  @Test
  void aTokenOfAnotherKeyIsRefusedOverHttp() throws Exception {
    McpAsyncClient mcp = start();
    FencingToken mallory =
        signing.sign(
            new FencingToken(LeaseKey.of("mallory", "own"), 9, UUID.randomUUID()),
            Clock.systemUTC(),
            Duration.ofMinutes(5));
    McpSchema.CallToolResult r =
        McpRunFence.of(mallory)
            .callTool(mcp, write("acct-7/chat-1/plan.md", "x"))
            .block(Duration.ofSeconds(30));
    assertThat(McpRefusal.from(r).orElseThrow().reason()).isEqualTo(Refusal.Reason.OUT_OF_SCOPE);
    assertThat(Files.exists(dir.resolve("body-runs.log"))).isFalse();
  }
}
