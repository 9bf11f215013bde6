package io.leasehold.examples.mcp;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.leasehold.adapters.tool.FencedToolExecutor;
import io.leasehold.adapters.tool.FileToolJournal;
import io.leasehold.adapters.tool.ToolScope;
import io.leasehold.fencing.TokenKeySet;
import io.leasehold.fencing.TokenVerifier;
import io.leasehold.mcp.McpToolFence;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.jackson2.JacksonMcpJsonMapper;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.server.transport.StdioServerTransportProvider;
import io.modelcontextprotocol.spec.McpSchema;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;

/**
 * The MCP demo's tool server: a file-writing MCP server over stdio, fenced with the lease store's
 * public verification key. Arguments: the directory it writes under, its journal file, and the
 * verification key text.
 */
public final class FilesMcpServer {
  private FilesMcpServer() {}

  /**
   * Runs the server until its client closes it.
   *
   * @param args root, journal, verification key set text
   * @throws InterruptedException if interrupted
   */
  public static void main(String[] args) throws InterruptedException {
    Path root = Path.of(args[0]);
    McpJsonMapper mapper = new JacksonMcpJsonMapper(new ObjectMapper());
    // region mcp-server
    FencedToolExecutor executor =
        FencedToolExecutor.builder()
            .verifier(TokenVerifier.signedBy(TokenKeySet.parse(args[2])))
            .journal(FileToolJournal.open(Path.of(args[1]))) // the server's own durable marks
            .scope(ToolScope.argumentUnderKey("path")) // a session writes under acct/session/
            .build();
    McpToolFence fence = McpToolFence.builder(executor).build();
    McpServer.sync(new StdioServerTransportProvider(mapper))
        .serverInfo("files", "1")
        .capabilities(McpSchema.ServerCapabilities.builder().tools(true).build())
        .tools(fence.fence(writeFile(root, mapper))) // the tool as written, fenced
        .build();
    // endregion
    new CountDownLatch(1).await();
  }

  private static SyncToolSpecification writeFile(Path root, McpJsonMapper mapper) {
    return SyncToolSpecification.builder()
        .tool(
            McpSchema.Tool.builder(
                    "write_file",
                    mapper,
                    "{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\"},"
                        + "\"content\":{\"type\":\"string\"}},\"required\":[\"path\",\"content\"]}")
                .description("Writes a text file")
                .build())
        .callHandler(
            (exchange, request) -> {
              String path = String.valueOf(request.arguments().get("path"));
              try {
                Path target = root.resolve(path).normalize();
                Files.createDirectories(target.getParent());
                Files.writeString(target, String.valueOf(request.arguments().get("content")));
              } catch (IOException e) {
                throw new UncheckedIOException(e);
              }
              return McpSchema.CallToolResult.builder().addTextContent("wrote " + path).build();
            })
        .build();
  }
}
