package io.leasehold.mcp;

import jakarta.servlet.http.HttpServlet;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

/** An embedded Jetty on a free loopback port serving one servlet: the MCP tests' HTTP server. */
final class LoopbackJetty implements AutoCloseable {
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

  @Override
  public void close() throws Exception {
    jetty.stop();
  }
}
