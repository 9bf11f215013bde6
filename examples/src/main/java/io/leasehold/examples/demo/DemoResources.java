package io.leasehold.examples.demo;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.leasehold.adapters.file.FencedFileStore;
import io.leasehold.adapters.jdbc.FencedJdbcWriter;
import io.leasehold.adapters.jdbc.HighWaterSchema;
import io.leasehold.adapters.tool.FencedTool;
import io.leasehold.adapters.tool.FencedToolExecutor;
import io.leasehold.adapters.tool.FileToolJournal;
import io.leasehold.fencing.Fenced;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.TokenVerifier;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/** The three fenced resources the demo's agent job writes through, and their final contents. */
final class DemoResources {
  static final String ANSWER = "acct-7/chat-1/answer.md";

  final FencedFileStore files;
  final FencedToolExecutor tools;
  final FencedJdbcWriter db;
  final ChatService chat = new ChatService();
  private final DataSource resourceDb;

  /** A row of the demo's message table. */
  record Row(long id, String device, long fence, String body) {}

  DemoResources(Path dir, DataSource resourceDb) {
    this.resourceDb = resourceDb;
    this.files = FencedFileStore.open(dir.resolve("files"), TokenVerifier.trustEveryWriter());
    FencedTool postMessage =
        FencedTool.withInvocation(
            "post_message",
            call -> {
              // The tool forwards the token; the chat service checks it itself.
              chat.post(call.token().toText(), call.arguments().get("text").asText());
              return JsonNodeFactory.instance.textNode("posted");
            });
    this.tools =
        FencedToolExecutor.builder()
            .verifier(TokenVerifier.trustEveryWriter())
            .journal(FileToolJournal.open(dir.resolve("tool-journal.jsonl")))
            .tool(postMessage)
            .build();
    HighWaterSchema.defaults().apply(resourceDb);
    try (Connection c = resourceDb.getConnection();
        Statement s = c.createStatement()) {
      s.execute(
          "CREATE TABLE IF NOT EXISTS agent_messages (id bigserial PRIMARY KEY, session_id text,"
              + " device text, fence bigint, body text)");
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
    this.db =
        FencedJdbcWriter.builder(resourceDb).verifier(TokenVerifier.trustEveryWriter()).build();
  }

  void writeFile(Fenced writer, String text) {
    files.write(writer, ANSWER, text.getBytes(StandardCharsets.UTF_8));
  }

  void callTool(Fenced writer, String text) {
    tools.call(writer, "post_message", JsonNodeFactory.instance.objectNode().put("text", text));
  }

  void insertRow(Fenced writer, String device, String text) {
    db.write(
        writer,
        (c, token) -> {
          try (PreparedStatement ps =
              c.prepareStatement(
                  "INSERT INTO agent_messages (session_id, device, fence, body) VALUES (?, ?, ?, ?)")) {
            ps.setString(1, token.key().sessionId());
            ps.setString(2, device);
            ps.setLong(3, token.fence());
            ps.setString(4, text);
            return ps.executeUpdate();
          }
        });
  }

  String fileContent() {
    return files.read(ANSWER).map(f -> new String(f.content(), StandardCharsets.UTF_8)).orElse("");
  }

  FencingToken fileWriter() {
    return files.read(ANSWER).flatMap(f -> f.writtenBy()).orElse(null);
  }

  List<Row> rows() {
    List<Row> rows = new ArrayList<>();
    try (Connection c = resourceDb.getConnection();
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery("SELECT id, device, fence, body FROM agent_messages ORDER BY id")) {
      while (rs.next()) {
        rows.add(new Row(rs.getLong(1), rs.getString(2), rs.getLong(3), rs.getString(4)));
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
    return rows;
  }

  static Path tempDir() {
    try {
      return Files.createTempDirectory("leasehold-demo-");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
