package io.leasehold.examples;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.leasehold.adapters.file.FencedFileStore;
import io.leasehold.adapters.file.StoredFile;
import io.leasehold.adapters.jdbc.FencedJdbcWriter;
import io.leasehold.adapters.jdbc.HighWaterSchema;
import io.leasehold.adapters.tool.FencedTool;
import io.leasehold.adapters.tool.FencedToolExecutor;
import io.leasehold.adapters.tool.FileToolJournal;
import io.leasehold.adapters.tool.ToolCall;
import io.leasehold.adapters.tool.ToolInvocation;
import io.leasehold.adapters.tool.ToolResult;
import io.leasehold.fencing.Fenced;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.InMemoryFenceGuard;
import io.leasehold.fencing.StaleFenceException;
import io.leasehold.fencing.TokenTransport;
import io.leasehold.fencing.TokenVerifier;
import io.leasehold.fencing.json.FencingJsonModule;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.PreparedStatement;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;

/**
 * The resource owners' samples of docs/resource-owners.md and docs/tokens.md, compiled and run on
 * every build (see {@code ResourceOwnerExamplesTest}).
 */
public final class ResourceOwnerExamples {
  private ResourceOwnerExamples() {}

  // region own-resource
  /** A single-process resource guarded with the fencing API alone. */
  static final class NotesBoard {
    private final InMemoryFenceGuard guard =
        InMemoryFenceGuard.create(TokenVerifier.trustEveryWriter());
    private final Map<String, String> notes = new HashMap<>();

    /** Throws StaleFenceException if a newer run of the session has written. */
    void post(Fenced writer, String session, String text) {
      guard.runFenced(writer, () -> notes.put(session, text)); // check and write under one lock
    }
  }

  // endregion

  static String postNote(Fenced writer) {
    NotesBoard board = new NotesBoard();
    board.post(writer, "chat-1", "hello");
    return board.notes.get("chat-1");
  }

  /**
   * A downstream service checking the token of an incoming request.
   *
   * @param headerValue the request's {@link TokenTransport#HTTP_HEADER} value
   * @param guard the service's guard
   * @return an HTTP status
   */
  public static int handleRequest(String headerValue, InMemoryFenceGuard guard) {
    // region remote-check
    FencingToken token;
    try {
      token = TokenTransport.fromHeader(headerValue); // header "Leasehold-Token"
    } catch (IllegalArgumentException malformed) {
      return 400;
    }
    try {
      return guard.runFenced(token, () -> 200); // perform the write inside
    } catch (StaleFenceException stale) {
      return 409; // a newer run of this session has written; tell the caller to stop
    }
    // endregion
  }

  /**
   * The file store.
   *
   * @param lease the run's lease
   * @param root the store's directory
   * @return who wrote the file
   */
  public static FencingToken fileStore(Fenced lease, Path root) {
    // region file-store
    FencedFileStore files = FencedFileStore.open(root, TokenVerifier.trustEveryWriter());
    files.write(lease, "acct-7/chat-1/answer.md", "# Answer".getBytes(StandardCharsets.UTF_8));
    StoredFile answer = files.read("acct-7/chat-1/answer.md").orElseThrow();
    FencingToken writer = answer.writtenBy().orElseThrow(); // which run (and fence) wrote it
    // endregion
    return writer;
  }

  /**
   * The tool executor.
   *
   * @param lease the run's lease
   * @param journalFile the journal
   * @return the in-doubt calls seen by the run
   */
  public static List<ToolCall> toolExecutor(Fenced lease, Path journalFile) {
    // region tool-executor
    FencedTool sendEmail =
        new FencedTool() {
          @Override
          public String name() {
            return "send_email";
          }

          @Override
          public JsonNode call(ToolInvocation call) {
            // Forward call.token().toText() in the Leasehold-Token header if the mail service
            // can check it; otherwise only the run stopping on loss protects this effect.
            return JsonNodeFactory.instance.textNode(
                "queued " + call.arguments().get("to").asText());
          }
        };
    FencedToolExecutor tools =
        FencedToolExecutor.builder()
            .verifier(TokenVerifier.trustEveryWriter())
            .journal(FileToolJournal.open(journalFile)) // durable, shared by processes
            .tool(sendEmail)
            .build();

    List<ToolCall> unconfirmed = tools.inDoubt(lease); // earlier runs' calls nobody confirmed
    ToolResult result =
        tools.call(
            lease,
            "send_email",
            JsonNodeFactory.instance.objectNode().put("to", "ada@example.org"));
    // endregion
    if (result.value().isNull()) {
      throw new IllegalStateException("unexpected");
    }
    return unconfirmed;
  }

  /**
   * The database writer.
   *
   * @param lease the run's lease
   * @param resourceDb the resource database
   * @return rows written
   */
  public static int jdbcWriter(Fenced lease, DataSource resourceDb) {
    // region jdbc-writer
    HighWaterSchema.defaults().apply(resourceDb); // the high-water table, once
    FencedJdbcWriter writer =
        FencedJdbcWriter.builder(resourceDb).verifier(TokenVerifier.trustEveryWriter()).build();
    int rows =
        writer.write(
            lease,
            (connection, token) -> {
              try (PreparedStatement ps =
                  connection.prepareStatement(
                      "INSERT INTO messages (session_id, fence, body) VALUES (?, ?, ?)")) {
                ps.setString(1, token.key().sessionId());
                ps.setLong(2, token.fence());
                ps.setString(3, "hello");
                return ps.executeUpdate(); // committed only if the fence is not stale
              }
            });
    // endregion
    return rows;
  }

  /**
   * The token's forms.
   *
   * @param token a token
   * @return the token read back from JSON
   * @throws IOException never, for valid tokens
   */
  public static FencingToken tokenForms(FencingToken token) throws IOException {
    // region token-forms
    String text = token.toText(); // lh2.42.2f1e0c52-....YWNjdC03.Y2hhdC0x
    FencingToken fromText = FencingToken.parse(text); // strict: malformed text throws

    ObjectMapper mapper = new ObjectMapper().registerModule(new FencingJsonModule());
    String json = mapper.writeValueAsString(fromText);
    FencingToken fromJson = mapper.readValue(json, FencingToken.class);
    // endregion
    return fromJson;
  }
}
