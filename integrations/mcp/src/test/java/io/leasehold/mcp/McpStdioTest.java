package io.leasehold.mcp;

import static io.leasehold.mcp.McpWorld.refusal;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.leasehold.adapters.agent.RunStoppedException;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.Refusal;
import io.leasehold.fencing.SignatureScheme;
import io.leasehold.fencing.SigningKey;
import io.leasehold.fencing.TokenKeySet;
import io.leasehold.lease.AccessPolicy;
import io.leasehold.lease.Lease;
import io.leasehold.lease.LeaseSchema;
import io.leasehold.lease.LeaseStore;
import io.leasehold.testing.TestDatabaseExtension;
import io.leasehold.testkit.ChildJvm;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.ServerParameters;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 28 over stdio: a fenced file-writing MCP server runs as a child process, and two runs of
 * one session (a desktop and a browser) call it through {@link McpRunFence}. The superseded run's
 * calls never reach the tool body, also after the server restarts on its journal.
 */
class McpStdioTest {
  @RegisterExtension
  static final TestDatabaseExtension db =
      TestDatabaseExtension.withTemplate("lease", ds -> LeaseSchema.defaults().apply(ds));

  private static final LeaseKey SESSION = LeaseKey.of("acct-7", "chat-1");
  private final SigningKey signing = SigningKey.generate(SignatureScheme.ED25519, "store-1");
  @TempDir Path dir;
  private McpSyncClient client;

  @AfterEach
  void closeClient() {
    if (client != null) {
      client.closeGracefully();
    }
  }

  private Path root() {
    return dir.resolve("world");
  }

  private McpSyncClient startServer() {
    if (client != null) {
      client.closeGracefully();
    }
    List<String> command =
        ChildJvm.command(
            FileMcpServerMain.class,
            root().toString(),
            dir.resolve("tools.jsonl").toString(),
            TokenKeySet.of(signing.verificationKey()).toText());
    client =
        McpWorld.connect(
            ServerParameters.builder(command.get(0))
                .args(command.subList(1, command.size()))
                .build());
    return client;
  }

  private FencingToken token(LeaseKey key, long fence) {
    return signing.sign(
        new FencingToken(key, fence, UUID.randomUUID()), Clock.systemUTC(), Duration.ofMinutes(5));
  }

  private static CallToolRequest write(String path, String content) {
    return CallToolRequest.builder("write_file")
        .arguments(Map.of("path", path, "content", content))
        .build();
  }

  private static CallToolRequest withMeta(CallToolRequest r, Map<String, Object> meta) {
    return CallToolRequest.builder(r.name()).arguments(r.arguments()).meta(meta).build();
  }

  /** Why {@code request}, sent with {@code token} where the token goes, is refused. */
  private static Refusal.Reason reasonWithToken(
      McpSyncClient mcp, CallToolRequest request, Object token) {
    return refusal(mcp.callTool(withMeta(request, Map.of(McpFencing.TOKEN_META_KEY, token))))
        .reason();
  }

  private List<String> bodyRuns() throws Exception {
    return McpWorld.bodyRuns(dir);
  }

  @Test
  void theSupersededRunsCallNeverReachesTheWorld() throws Exception {
    McpSyncClient mcp = startServer();
    McpRunFence desktop = McpRunFence.of(token(SESSION, 1));
    McpRunFence browser = McpRunFence.of(token(SESSION, 2));

    assertThat(desktop.callTool(mcp, write("acct-7/chat-1/plan.md", "desktop draft")).isError())
        .isNotEqualTo(Boolean.TRUE);
    assertThat(browser.callTool(mcp, write("acct-7/chat-1/plan.md", "browser plan")).isError())
        .isNotEqualTo(Boolean.TRUE);
    assertThatThrownBy(() -> desktop.callTool(mcp, write("acct-7/chat-1/plan.md", "desktop late")))
        .isInstanceOfSatisfying(
            RunStoppedException.class,
            e -> {
              assertThat(e.stop().reason()).isEqualTo(Refusal.Reason.SUPERSEDED);
              assertThat(e.stop().newerFence()).hasValue(2);
            });
    // Stopped for good: the next call is refused here, without a round trip.
    assertThatThrownBy(() -> desktop.callTool(mcp, write("acct-7/chat-1/other.md", "x")))
        .isInstanceOf(RunStoppedException.class);
    assertThat(desktop.stopped()).isPresent();

    assertThat(Files.exists(root().resolve("acct-7/chat-1/other.md"))).isFalse();
    McpWorld.assertTheBrowsersPlanFollowedTheDesktopsDraft(dir);
  }

  @Test
  void aRestartedServerStillRefusesTheOldRun() throws Exception {
    FencingToken desktop = token(SESSION, 1);
    FencingToken browser = token(SESSION, 2);
    McpRunFence.of(browser).callTool(startServer(), write("acct-7/chat-1/a.md", "browser"));

    McpSyncClient restarted = startServer();
    CallToolResult refused =
        restarted.callTool(
            withMeta(
                write("acct-7/chat-1/a.md", "desktop"),
                Map.of(McpFencing.TOKEN_META_KEY, desktop.toText())));
    Refusal r = refusal(refused);
    assertThat(r.reason()).isEqualTo(Refusal.Reason.SUPERSEDED);
    assertThat(r.fence()).hasValue(1);
    assertThat(r.highestSeen()).hasValue(2);
    assertThat(r.key()).contains(SESSION);
    assertThat(Files.readString(root().resolve("acct-7/chat-1/a.md"))).isEqualTo("browser");
    assertThat(bodyRuns()).hasSize(1);
  }

  @Test
  void forgedExpiredMalformedMissingAndOutOfScopeTokensAreRefusedAndTheBodyNeverRuns()
      throws Exception {
    McpSyncClient mcp = startServer();
    SigningKey other = SigningKey.generate(SignatureScheme.ED25519, "store-1");
    FencingToken forged =
        other.sign(
            new FencingToken(SESSION, 99, UUID.randomUUID()),
            Clock.systemUTC(),
            Duration.ofMinutes(5));
    FencingToken expired =
        signing.sign(
            new FencingToken(SESSION, 5, UUID.randomUUID()),
            Instant.now().minusSeconds(600),
            Instant.now().minusSeconds(300));
    FencingToken mallory = token(LeaseKey.of("mallory", "own"), 50);
    CallToolRequest victimsFile = write("acct-7/chat-1/notes.md", "overwritten");

    assertThat(reasonWithToken(mcp, victimsFile, forged.toText())).isEqualTo(Refusal.Reason.FORGED);
    assertThat(reasonWithToken(mcp, victimsFile, expired.toText()))
        .isEqualTo(Refusal.Reason.EXPIRED);
    assertThat(reasonWithToken(mcp, victimsFile, "lh2.garbage"))
        .isEqualTo(Refusal.Reason.MALFORMED);
    assertThat(reasonWithToken(mcp, victimsFile, 42)).isEqualTo(Refusal.Reason.MALFORMED);
    assertThat(refusal(mcp.callTool(victimsFile)).reason()).isEqualTo(Refusal.Reason.MISSING);
    CallToolResult outOfScope = McpRunFence.of(mallory).callTool(mcp, victimsFile);
    assertThat(refusal(outOfScope).reason()).isEqualTo(Refusal.Reason.OUT_OF_SCOPE);
    assertThat(refusal(outOfScope).key()).contains(LeaseKey.of("mallory", "own"));

    assertThat(bodyRuns()).isEmpty();
    assertThat(Files.exists(root().resolve("acct-7/chat-1/notes.md"))).isFalse();
  }

  @Test
  void aRetriedCallWithTheSameIdempotencyKeyRunsOnce() throws Exception {
    McpSyncClient mcp = startServer();
    McpRunFence run = McpRunFence.of(token(SESSION, 3));
    CallToolRequest once =
        withMeta(
            write("acct-7/chat-1/sent.md", "hello"),
            Map.of(McpFencing.IDEMPOTENCY_META_KEY, "msg-1"));
    CallToolResult first = run.callTool(mcp, once);
    CallToolResult retry = run.callTool(mcp, once);
    assertThat(retry.content()).isEqualTo(first.content());
    assertThat(bodyRuns()).containsExactly("acct-7/chat-1/sent.md hello");
  }

  @Test
  void aLeaseLostInTheMiddleOfATurnStopsTheRemainingCalls() throws Exception {
    McpSyncClient mcp = startServer();
    try (LeaseStore store =
        LeaseStore.builder(db.dataSource())
            .accessPolicy(AccessPolicy.allowAll())
            .tokenSigningKey(signing)
            .build()) {
      Lease lease = store.tryAcquire(SESSION, "acct-7").acquiredLease().orElseThrow();
      McpRunFence run = McpRunFence.of(lease);
      run.callTool(mcp, write("acct-7/chat-1/step-1.md", "one"));
      lease.release(); // the turn goes on, but the run no longer holds the session
      assertThatThrownBy(() -> run.callTool(mcp, write("acct-7/chat-1/step-2.md", "two")))
          .isInstanceOfSatisfying(
              RunStoppedException.class,
              e -> assertThat(e.stop().reason()).isEqualTo(Refusal.Reason.LEASE_LOST));
      assertThatThrownBy(() -> run.callTool(mcp, write("acct-7/chat-1/step-3.md", "three")))
          .isInstanceOf(RunStoppedException.class);
    }
    assertThat(bodyRuns()).containsExactly("acct-7/chat-1/step-1.md one");
  }
}
