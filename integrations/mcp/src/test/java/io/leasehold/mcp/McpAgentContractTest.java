package io.leasehold.mcp;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.leasehold.adapters.tool.FencedToolExecutor;
import io.leasehold.adapters.tool.MemoryToolJournal;
import io.leasehold.fencing.Fenced;
import io.leasehold.fencing.TokenVerifier;
import io.leasehold.testkit.AgentFrameworkContract;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.jackson2.JacksonMcpJsonMapper;
import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.server.transport.HttpServletStreamableServerTransportProvider;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The testkit's agent-framework contract over MCP: a fenced MCP server on streamable HTTP
 * (loopback, an embedded Jetty), called through {@link McpRunFence} by the SDK's sync client. The
 * idempotency key travels in {@code _meta} under {@value McpFencing#IDEMPOTENCY_META_KEY}.
 */
class McpAgentContractTest implements AgentFrameworkContract {
  @Override
  public AgentHarness agentHarness() {
    try {
      return new McpHarness();
    } catch (Exception e) {
      throw new IllegalStateException("could not start the MCP server", e);
    }
  }

  private static final class McpHarness implements AgentHarness {
    private final McpJsonMapper mapper = new JacksonMcpJsonMapper(new ObjectMapper());
    private final List<String> effects = new CopyOnWriteArrayList<>();
    private final LoopbackJetty jetty;
    private final McpSyncServer server;
    private final McpSyncClient client;

    McpHarness() throws Exception {
      HttpServletStreamableServerTransportProvider transport =
          LoopbackJetty.serverTransport(mapper);
      FencedToolExecutor executor =
          FencedToolExecutor.builder()
              .verifier(TokenVerifier.trustEveryWriter())
              .journal(new MemoryToolJournal())
              .build();
      McpSchema.Tool tool =
          McpSchema.Tool.builder(
                  "record",
                  mapper,
                  "{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\"}},\"required\":[\"text\"]}")
              .description("Records a text")
              .build();
      SyncToolSpecification record =
          SyncToolSpecification.builder()
              .tool(tool)
              .callHandler(
                  (exchange, request) -> {
                    effects.add((String) request.arguments().get("text"));
                    return McpSchema.CallToolResult.builder().addTextContent("recorded").build();
                  })
              .build();
      server =
          LoopbackJetty.syncServer(
              transport,
              "leasehold-contract",
              McpToolFence.builder(executor).build().fence(record));
      jetty = new LoopbackJetty(transport);
      client = jetty.syncClient(mapper);
    }

    @Override
    public void call(Fenced run, String text, Optional<String> idempotencyKey) {
      Map<String, Object> meta = new HashMap<>();
      idempotencyKey.ifPresent(k -> meta.put(McpFencing.IDEMPOTENCY_META_KEY, k));
      CallToolRequest request =
          CallToolRequest.builder("record").arguments(Map.of("text", text)).meta(meta).build();
      McpSchema.CallToolResult result = McpRunFence.of(run).callTool(client, request);
      if (Boolean.TRUE.equals(result.isError())) {
        throw new IllegalStateException("refused: " + McpRefusal.from(result));
      }
    }

    @Override
    public void startRun(Fenced run) {
      // An MCP server learns of a newer run from its first call: nothing to send before it.
    }

    @Override
    public List<String> effects() {
      return List.copyOf(effects);
    }

    @Override
    public void close() {
      client.closeGracefully();
      server.closeGracefully();
      try {
        jetty.close();
      } catch (Exception e) {
        throw new IllegalStateException("could not stop the test's Jetty", e);
      }
    }
  }
}
