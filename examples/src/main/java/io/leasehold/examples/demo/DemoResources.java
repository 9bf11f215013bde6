package io.leasehold.examples.demo;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.leasehold.adapters.file.FencedFileStore;
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
import java.util.List;
import javax.sql.DataSource;

/** The three fenced resources the demo's agent job writes through, and their final contents. */
final class DemoResources {
  static final String ANSWER = "acct-7/chat-1/answer.md";

  final FencedFileStore files;
  final FencedToolExecutor tools;
  final ChatService chat = new ChatService();
  private final MessageTable messages;

  /** A row of the demo's message table. */
  record Row(long id, String device, long fence, String body) {}

  DemoResources(Path dir, DataSource resourceDb) {
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
    this.messages =
        new MessageTable(
            resourceDb,
            TokenVerifier.trustEveryWriter(),
            "CREATE TABLE IF NOT EXISTS agent_messages (id bigserial PRIMARY KEY, session_id text,"
                + " device text, fence bigint, body text)");
  }

  void writeFile(Fenced writer, String text) {
    files.write(writer, ANSWER, text.getBytes(StandardCharsets.UTF_8));
  }

  void callTool(Fenced writer, String text) {
    tools.call(writer, "post_message", JsonNodeFactory.instance.objectNode().put("text", text));
  }

  void insertRow(Fenced writer, String device, String text) {
    messages.insert(
        writer,
        "INSERT INTO agent_messages (session_id, device, fence, body) VALUES (?, ?, ?, ?)",
        token -> List.of(token.key().sessionId(), device, token.fence(), text));
  }

  String fileContent() {
    return files.read(ANSWER).map(f -> new String(f.content(), StandardCharsets.UTF_8)).orElse("");
  }

  FencingToken fileWriter() {
    return files.read(ANSWER).flatMap(f -> f.writtenBy()).orElse(null);
  }

  List<Row> rows() {
    return messages.query(
        "SELECT id, device, fence, body FROM agent_messages ORDER BY id",
        rs -> new Row(rs.getLong(1), rs.getString(2), rs.getLong(3), rs.getString(4)));
  }

  static Path tempDir() {
    try {
      return Files.createTempDirectory("leasehold-demo-");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
