package io.leasehold.mcp;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.leasehold.adapters.tool.FencedToolExecutor;
import io.leasehold.adapters.tool.FileToolJournal;
import io.leasehold.adapters.tool.ToolScope;
import io.leasehold.fencing.TokenKeySet;
import io.leasehold.fencing.TokenVerifier;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.jackson2.JacksonMcpJsonMapper;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.server.transport.StdioServerTransportProvider;
import io.modelcontextprotocol.spec.McpSchema;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.CountDownLatch;

/**
 * A file-writing MCP server over stdio, fenced: the world is the directory {@code root}, and {@code
 * root/../body-runs.log} gets one line each time the tool body runs. Arguments: root, journal file,
 * and the verification key set text (or {@code trust} for trustEveryWriter).
 */
public final class FileMcpServerMain {
  private FileMcpServerMain() {}

  public static void main(String[] args) throws Exception {
    Path root = Path.of(args[0]);
    Path journal = Path.of(args[1]);
    Files.createDirectories(root);
    McpJsonMapper mapper = new JacksonMcpJsonMapper(new ObjectMapper());
    FencedToolExecutor executor =
        FencedToolExecutor.builder()
            .verifier(
                args[2].equals("trust")
                    ? TokenVerifier.trustEveryWriter()
                    : TokenVerifier.signedBy(TokenKeySet.parse(args[2])))
            .journal(FileToolJournal.open(journal))
            .scope(ToolScope.argumentUnderKey("path"))
            .build();
    McpToolFence fence = McpToolFence.builder(executor).build();
    SyncToolSpecification writeFile = writeFile(root, mapper);
    McpServer.sync(new StdioServerTransportProvider(mapper))
        .serverInfo("leasehold-files", "1")
        .capabilities(McpSchema.ServerCapabilities.builder().tools(true).build())
        .tools(fence.fence(writeFile))
        .build();
    new CountDownLatch(1).await(); // the client ends this process when it closes
  }

  /** The tool as an MCP server author writes it, knowing nothing of fences. */
  static SyncToolSpecification writeFile(Path root, McpJsonMapper mapper) {
    McpSchema.Tool tool =
        McpSchema.Tool.builder(
                "write_file",
                mapper,
                "{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\"},"
                    + "\"content\":{\"type\":\"string\"}},\"required\":[\"path\",\"content\"]}")
            .description("Writes a file under the server's root")
            .build();
    return SyncToolSpecification.builder()
        .tool(tool)
        .callHandler(
            (exchange, request) -> {
              String path = (String) request.arguments().get("path");
              String content = (String) request.arguments().get("content");
              try {
                Path target = root.resolve(path).normalize();
                Files.createDirectories(target.getParent());
                Files.writeString(target, content);
                Files.writeString(
                    root.resolveSibling("body-runs.log"),
                    path + " " + content + "\n",
                    StandardCharsets.UTF_8,
                    StandardOpenOption.CREATE,
                    StandardOpenOption.APPEND);
              } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
              }
              return McpSchema.CallToolResult.builder().addTextContent("wrote " + path).build();
            })
        .build();
  }
}
