package io.leasehold.examples.web;

import io.leasehold.fencing.TokenVerifier;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.leasehold.adapters.file.FencedFileStore;
import io.leasehold.adapters.jdbc.FencedJdbcWriter;
import io.leasehold.adapters.jdbc.HighWaterSchema;
import io.leasehold.adapters.tool.FencedTool;
import io.leasehold.adapters.tool.FencedToolExecutor;
import io.leasehold.adapters.tool.MemoryToolJournal;
import io.leasehold.fencing.Fenced;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import javax.sql.DataSource;

/** The web demo's three fenced resources, and the log of every write attempt the pages show. */
final class WebResources {
  /** One write attempt. */
  record WriteLog(String device, String adapter, long fence, boolean admitted, String outcome) {}

  private final FencedFileStore files;
  private final FencedToolExecutor tools;
  private final FencedJdbcWriter db;
  private final List<WriteLog> log = new ArrayList<>();
  private final Consumer<WriteLog> onLog;

  WebResources(Path dir, DataSource ds, TokenVerifier verifier, Consumer<WriteLog> onLog) {
    this.onLog = onLog;
    this.files = FencedFileStore.open(dir.resolve("files"), verifier);
    FencedTool post = FencedTool.of("post_message", args -> JsonNodeFactory.instance.textNode("posted"));
    this.tools = FencedToolExecutor.builder().verifier(verifier).journal(new MemoryToolJournal()).tool(post).build();
    HighWaterSchema.defaults().apply(ds);
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement()) {
      s.execute("CREATE TABLE IF NOT EXISTS web_messages (id bigserial PRIMARY KEY, device text, fence bigint, body text)");
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
    this.db = FencedJdbcWriter.builder(ds).verifier(verifier).build();
  }

  void write(String adapter, Fenced fenced, String device, String text) {
    switch (adapter) {
      case "file store" -> files.write(fenced, "acct-7/chat-1/answer.md", text.getBytes(StandardCharsets.UTF_8));
      case "tool" -> tools.call(fenced, "post_message", JsonNodeFactory.instance.objectNode().put("text", text));
      default ->
          db.write(
              fenced,
              (c, token) -> {
                try (PreparedStatement ps =
                    c.prepareStatement("INSERT INTO web_messages (device, fence, body) VALUES (?, ?, ?)")) {
                  ps.setString(1, device);
                  ps.setLong(2, token.fence());
                  ps.setString(3, text);
                  return ps.executeUpdate();
                }
              });
    }
  }

  void log(String device, String adapter, long fence, boolean admitted, String outcome) {
    WriteLog entry = new WriteLog(device, adapter, fence, admitted, outcome);
    synchronized (log) {
      log.add(entry);
    }
    onLog.accept(entry);
  }

  List<WriteLog> entries() {
    synchronized (log) {
      return List.copyOf(log);
    }
  }
}
