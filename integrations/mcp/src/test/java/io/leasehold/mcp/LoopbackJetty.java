package io.leasehold.mcp;

import io.modelcontextprotocol.client.McpAsyncClient;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.server.transport.HttpServletStreamableServerTransportProvider;
import io.modelcontextprotocol.spec.McpSchema;
import jakarta.servlet.http.HttpServlet;
import java.time.Duration;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

/**
 * An embedded Jetty on a free loopback port serving one servlet: the MCP tests' HTTP server, with
 * the two ends of MCP's streamable HTTP at {@code /mcp} that they put on it.
 */
final class LoopbackJetty implements AutoCloseable {
  /** What a server with tools offers. */
  static final McpSchema.ServerCapabilities TOOLS =
      McpSchema.ServerCapabilities.builder().tools(true).build();

  private static final Duration CLIENT_TIMEOUT = Duration.ofSeconds(30);

  private final Server jetty = new Server();
  private final int port;

  LoopbackJetty(HttpServlet servlet) throws Exception {
    ServerConnector connector = new ServerConnector(jetty);
    connector.setHost("127.0.0.1");
    connector.setPort(0);
    jetty.addConnector(connector);
    ServletContextHandler context = new ServletContextHandler();
    context.addServlet(new ServletHolder(servlet), "/*");
    jetty.setHandler(context);
    jetty.start();
    port = connector.getLocalPort();
  }

  /** The base URL, {@code http://127.0.0.1:<port>}. */
  String url() {
    return "http://127.0.0.1:" + port;
  }

  /** The server end at {@code /mcp}: the servlet to serve. */
  static HttpServletStreamableServerTransportProvider serverTransport(McpJsonMapper mapper) {
    return HttpServletStreamableServerTransportProvider.builder()
        .jsonMapper(mapper)
        .mcpEndpoint("/mcp")
        .build();
  }

  /** A sync MCP server called {@code name} on {@code transport}, offering one (fenced) tool. */
  static McpSyncServer syncServer(
      HttpServletStreamableServerTransportProvider transport,
      String name,
      SyncToolSpecification tool) {
    return McpServer.sync(transport).serverInfo(name, "1").capabilities(TOOLS).tools(tool).build();
  }

  private HttpClientStreamableHttpTransport clientTransport(McpJsonMapper mapper) {
    return HttpClientStreamableHttpTransport.builder(url())
        .jsonMapper(mapper)
        .endpoint("/mcp")
        .build();
  }

  /** A sync client of this server's {@code /mcp}, initialized. */
  McpSyncClient syncClient(McpJsonMapper mapper) {
    McpSyncClient client =
        McpClient.sync(clientTransport(mapper)).requestTimeout(CLIENT_TIMEOUT).build();
    client.initialize();
    return client;
  }

  /** An async client of this server's {@code /mcp}, initialized. */
  McpAsyncClient asyncClient(McpJsonMapper mapper) {
    McpAsyncClient client =
        McpClient.async(clientTransport(mapper)).requestTimeout(CLIENT_TIMEOUT).build();
    client.initialize().block(CLIENT_TIMEOUT);
    return client;
  }

  @Override
  public void close() throws Exception {
    jetty.stop();
  }
}
