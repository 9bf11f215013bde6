package io.leasehold.mcp;

import static io.leasehold.mcp.McpWorld.refusal;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.leasehold.adapters.tool.FencedToolExecutor;
import io.leasehold.adapters.tool.JdbcToolJournal;
import io.leasehold.adapters.tool.MemoryToolJournal;
import io.leasehold.adapters.tool.ToolJournal;
import io.leasehold.adapters.tool.ToolJournalSchema;
import io.leasehold.adapters.tool.ToolScope;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.Refusal;
import io.leasehold.fencing.TokenVerifier;
import io.leasehold.testing.TestDatabaseExtension;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.jackson2.JacksonMcpJsonMapper;
import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.server.transport.HttpServletStreamableServerTransportProvider;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 46 item 9: the edges of the MCP server fence, seen by a real client over streamable HTTP.
 * Each test is named after what broke.
 */
class McpFenceEdgesTest {
  @RegisterExtension
  static final TestDatabaseExtension db =
      TestDatabaseExtension.withTemplate("mcp_edges", ds -> ToolJournalSchema.defaults().apply(ds));

  private static final LeaseKey SESSION = LeaseKey.of("acct-7", "chat-1");
  private final McpJsonMapper mapper = new JacksonMcpJsonMapper(new ObjectMapper());
  @TempDir Path dir;
  private LoopbackJetty jetty;
  private McpSyncServer server;
  private McpSyncClient client;

  @AfterEach
  void stop() throws Exception {
    if (client != null) {
      client.closeGracefully();
    }
    if (server != null) {
      server.closeGracefully();
    }
    if (jetty != null) {
      jetty.close();
    }
  }

  private McpSyncClient start(TokenVerifier verifier, ToolJournal journal) throws Exception {
    return start(verifier, journal, FileMcpServerMain.writeFile(dir.resolve("world"), mapper));
  }

  private McpSyncClient start(
      TokenVerifier verifier, ToolJournal journal, SyncToolSpecification tool) throws Exception {
    HttpServletStreamableServerTransportProvider transport = LoopbackJetty.serverTransport(mapper);
    FencedToolExecutor executor =
        FencedToolExecutor.builder()
            .verifier(verifier)
            .journal(journal)
            .scope(ToolScope.argumentUnderKey("path"))
            .build();
    server =
        LoopbackJetty.syncServer(
            transport, "leasehold-files", McpToolFence.builder(executor).build().fence(tool));
    jetty = new LoopbackJetty(transport);
    client = jetty.syncClient(mapper);
    return client;
  }

  private McpSyncClient start() throws Exception {
    return start(TokenVerifier.trustEveryWriter(), new MemoryToolJournal());
  }

  private static CallToolRequest write(String path, String content, Map<String, Object> meta) {
    return CallToolRequest.builder("write_file")
        .arguments(Map.of("path", path, "content", content))
        .meta(meta)
        .build();
  }

  /** Writes "x" to {@code path} as run 1 of the session, its token in {@code _meta}. */
  private static CallToolResult writeXAsRun1(McpSyncClient mcp, String path) {
    return mcp.callTool(
        write(path, "x", meta(new FencingToken(SESSION, 1, UUID.randomUUID()), null)));
  }

  private static Map<String, Object> meta(FencingToken token, Object idempotencyKey) {
    Map<String, Object> m = new HashMap<>();
    m.put(McpFencing.TOKEN_META_KEY, token.toText());
    if (idempotencyKey != null) {
      m.put(McpFencing.IDEMPOTENCY_META_KEY, idempotencyKey);
    }
    return m;
  }

  private List<String> bodyRuns() throws Exception {
    return McpWorld.bodyRuns(dir);
  }

  /**
   * A journal whose table is locked past its lock timeout reached the client as JSON-RPC error
   * -32603 carrying the table's name and the SQL state; now it is the documented refusal {@code
   * unavailable}, naming neither, and the tool did not run.
   */
  @Test
  void aJournalThatCannotRecordIsRefusedAsUnavailableNamingNoTable() throws Exception {
    McpSyncClient mcp =
        start(
            TokenVerifier.trustEveryWriter(),
            JdbcToolJournal.create(
                db.dataSource(), ToolJournalSchema.defaults(), Duration.ofMillis(300)));
    FencingToken run = new FencingToken(SESSION, 1, UUID.randomUUID());
    CallToolResult r;
    try (Connection migration = db.database().newConnection()) {
      migration.setAutoCommit(false);
      try (Statement st = migration.createStatement()) {
        st.execute("LOCK TABLE leasehold_tool_call IN ACCESS EXCLUSIVE MODE");
      }
      r = McpRunFence.of(run).callTool(mcp, write("acct-7/chat-1/a.md", "x", null));
      migration.rollback();
    }
    Refusal refused = refusal(r);
    assertThat(refused.reason()).isEqualTo(Refusal.Reason.UNAVAILABLE);
    String wire = r.toString();
    assertThat(wire)
        .doesNotContain("leasehold_tool")
        .doesNotContain("55P03")
        .doesNotContain("SQLState");
    assertThat(bodyRuns()).isEmpty();
    // Once the lock is gone the same run goes on: unavailable did not stop it.
    assertThat(McpRunFence.of(run).callTool(mcp, write("acct-7/chat-1/a.md", "x", null)).isError())
        .isNotEqualTo(true);
  }

  /**
   * The journal fails after the tool ran (its table locked while the tool works, past the lock
   * timeout): the caller gets the tool's own result, not a refusal saying it did not run, and the
   * call stays in doubt.
   */
  @Test
  void aJournalThatCannotRecordTheOutcomeAnswersWithTheToolsOwnResult() throws Exception {
    JdbcToolJournal journal =
        JdbcToolJournal.create(
            db.dataSource(), ToolJournalSchema.defaults(), Duration.ofMillis(300));
    try (Connection migration = db.database().newConnection()) {
      migration.setAutoCommit(false);
      SyncToolSpecification writeFile = FileMcpServerMain.writeFile(dir.resolve("world"), mapper);
      SyncToolSpecification locking =
          SyncToolSpecification.builder()
              .tool(writeFile.tool())
              .callHandler(
                  (exchange, request) -> {
                    CallToolResult wrote = writeFile.callHandler().apply(exchange, request);
                    try (Statement st = migration.createStatement()) {
                      st.execute("LOCK TABLE leasehold_tool_call IN ACCESS EXCLUSIVE MODE");
                    } catch (java.sql.SQLException e) {
                      throw new IllegalStateException(e);
                    }
                    return wrote;
                  })
              .build();
      McpSyncClient mcp = start(TokenVerifier.trustEveryWriter(), journal, locking);
      FencingToken run = new FencingToken(SESSION, 1, UUID.randomUUID());
      CallToolResult r = McpRunFence.of(run).callTool(mcp, write("acct-7/chat-1/a.md", "x", null));
      migration.rollback();
      assertThat(McpRefusal.from(r)).isEmpty();
      assertThat(((McpSchema.TextContent) r.content().get(0)).text())
          .isEqualTo("wrote acct-7/chat-1/a.md");
      assertThat(bodyRuns()).containsExactly("acct-7/chat-1/a.md x");
      assertThat(journal.calls(SESSION))
          .singleElement()
          .satisfies(c -> assertThat(c.inDoubt()).isTrue());
    }
  }

  /**
   * Any throwable of the verifier (here an Error) is an unavailable refusal, not a JSON-RPC error.
   */
  @Test
  void aVerifierThatThrowsAnErrorIsRefusedAsUnavailable() throws Exception {
    McpSyncClient mcp =
        start(
            token -> {
              throw new LinkageError("lease table leasehold_lease unreachable (SQLState 08006)");
            },
            new MemoryToolJournal());
    CallToolResult r = writeXAsRun1(mcp, "acct-7/chat-1/a.md");
    assertThat(refusal(r).reason()).isEqualTo(Refusal.Reason.UNAVAILABLE);
    assertThat(r.toString()).doesNotContain("leasehold_lease").doesNotContain("08006");
    assertThat(bodyRuns()).isEmpty();
  }

  /**
   * Replays were per session: a newer run reusing an idempotency key was answered with the older
   * run's result, looking fresh, and its own write never happened. Now idempotency is per run.
   */
  @Test
  void aNewerRunReusingAnIdempotencyKeyRunsItsOwnCall() throws Exception {
    McpSyncClient mcp = start();
    FencingToken desktop = new FencingToken(SESSION, 1, UUID.randomUUID());
    FencingToken browser = new FencingToken(SESSION, 2, UUID.randomUUID());
    assertThat(
            mcp.callTool(write("acct-7/chat-1/plan.md", "desktop", meta(desktop, "save-plan")))
                .isError())
        .isNotEqualTo(true);
    assertThat(
            mcp.callTool(write("acct-7/chat-1/plan.md", "desktop", meta(desktop, "save-plan")))
                .isError())
        .as("the same run's retry is replayed")
        .isNotEqualTo(true);
    assertThat(
            mcp.callTool(write("acct-7/chat-1/plan.md", "browser", meta(browser, "save-plan")))
                .isError())
        .isNotEqualTo(true);
    assertThat(Files.readString(dir.resolve("world/acct-7/chat-1/plan.md"))).isEqualTo("browser");
    assertThat(bodyRuns())
        .containsExactly("acct-7/chat-1/plan.md desktop", "acct-7/chat-1/plan.md browser");
  }

  /** A non-string idempotency key was silently ignored (the call ran, unprotected). */
  @Test
  void aNonStringIdempotencyKeyIsRefusedAsMalformed() throws Exception {
    McpSyncClient mcp = start();
    FencingToken run = new FencingToken(SESSION, 1, UUID.randomUUID());
    for (Object bad :
        List.of(42, "", "k".repeat(McpRefusal.MAX_IDEMPOTENCY_KEY_LENGTH + 1), List.of("k"))) {
      Refusal r = refusal(mcp.callTool(write("acct-7/chat-1/a.md", "x", meta(run, bad))));
      assertThat(r.reason()).as("key %s", bad).isEqualTo(Refusal.Reason.MALFORMED);
      assertThat(r.message()).isEqualTo(McpRefusal.BAD_IDEMPOTENCY_KEY_MESSAGE);
    }
    assertThat(bodyRuns()).isEmpty();
  }

  /**
   * For a path with '..', out_of_scope named the caller's own key as the owner, and the refusal
   * text said twice that the tool did not run.
   */
  @Test
  void aDotDotPathIsOutOfScopeWithoutNamingTheCallersOwnKeyAsOwner() throws Exception {
    McpSyncClient mcp = start();
    CallToolResult r = writeXAsRun1(mcp, "acct-7/chat-1/../../victim/s/a.md");
    Refusal refused = refusal(r);
    assertThat(refused.reason()).isEqualTo(Refusal.Reason.OUT_OF_SCOPE);
    assertThat(refused.message())
        .doesNotContain("belongs to session acct-7/chat-1")
        .contains("'..'");
    String text = ((McpSchema.TextContent) r.content().get(0)).text();
    assertThat(text).containsOnlyOnce("NOT run").doesNotContain("did not run");
    assertThat(bodyRuns()).isEmpty();
  }

  /** Nothing in tools/list told a client that the tool needs a token, nor where it goes. */
  @Test
  void aFencedToolSaysInToolsListThatItNeedsATokenAndWhereItGoes() throws Exception {
    McpSchema.Tool listed = start().listTools().tools().get(0);
    assertThat(listed.description())
        .startsWith("Writes a file under the server's root")
        .endsWith(McpFencing.toolNote(true))
        .contains(McpFencing.TOKEN_META_KEY);
    assertThat(listed.meta()).containsKey(McpFencing.FENCE_META_KEY);
    @SuppressWarnings("unchecked")
    Map<String, Object> fence = (Map<String, Object>) listed.meta().get(McpFencing.FENCE_META_KEY);
    assertThat(fence)
        .containsEntry("tokenRequired", true)
        .containsEntry("tokenMetaKey", McpFencing.TOKEN_META_KEY);
  }

  /** The missing refusal pointed to a Java class, of no use to a TypeScript or Inspector user. */
  @Test
  void theMissingRefusalSaysHowToGetATokenInAnyLanguage() throws Exception {
    Refusal r = refusal(start().callTool(write("acct-7/chat-1/a.md", "x", Map.of())));
    assertThat(r.reason()).isEqualTo(Refusal.Reason.MISSING);
    assertThat(r.message())
        .doesNotContain("McpRunFence")
        .contains("params._meta[\"io.leasehold/token\"]")
        .contains("lease token");
    assertThat(bodyRuns()).isEmpty();
  }
}
