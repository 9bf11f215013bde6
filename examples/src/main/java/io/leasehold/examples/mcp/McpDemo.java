package io.leasehold.examples.mcp;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.zaxxer.hikari.HikariDataSource;
import io.leasehold.adapters.agent.RunStoppedException;
import io.leasehold.examples.demo.DemoDatabase;
import io.leasehold.examples.demo.DemoOptions;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.SignatureScheme;
import io.leasehold.fencing.SigningKey;
import io.leasehold.fencing.TokenKeySet;
import io.leasehold.lease.AccessPolicy;
import io.leasehold.lease.Lease;
import io.leasehold.lease.LeaseSchema;
import io.leasehold.lease.LeaseStore;
import io.leasehold.lease.LeaseStoreBuilder;
import io.leasehold.mcp.McpRunFence;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.ServerParameters;
import io.modelcontextprotocol.client.transport.StdioClientTransport;
import io.modelcontextprotocol.json.jackson2.JacksonMcpJsonMapper;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

/**
 * The MCP demo: a file-writing MCP server runs as a child process; a desktop run and then a browser
 * run of one session call it. The browser takes the session over while the desktop is still
 * running, so the desktop's next call is superseded: the server refuses it, the desktop's fence
 * stops the run, and the file holds the browser's words. Exits 1 if a superseded call reached the
 * world.
 */
public final class McpDemo {
  private static final LeaseKey SESSION = LeaseKey.of("acct-7", "chat-1");
  private static final String FILE = "acct-7/chat-1/plan.md";

  private McpDemo() {}

  /** What the demo showed. */
  record Verdict(String finalContent, boolean desktopStopped) {
    boolean passed() {
      return "browser: 2 days in Lisbon".equals(finalContent) && desktopStopped;
    }
  }

  /**
   * Runs the demo.
   *
   * @param args the demo options ({@code --help} lists them)
   */
  public static void main(String[] args) {
    Optional<DemoOptions> parsed =
        DemoOptions.fromCommandLine(
            args, "MCP demo: a superseded run's call refused by an MCP server in another process.");
    if (parsed.isEmpty()) {
      return;
    }
    Verdict v = run(parsed.get(), System.out);
    System.out.println(
        v.passed() ? "VERDICT: PASS (no superseded call reached the world)" : "VERDICT: FAIL");
    System.exit(v.passed() ? 0 : 1);
  }

  static Verdict run(DemoOptions options, PrintStream out) {
    Path dir;
    try {
      dir = Files.createTempDirectory("leasehold-mcp-demo");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    SigningKey signing = SigningKey.generate(SignatureScheme.ED25519, "demo-1");
    // The desktop's store renews on a thread of the demo's own, so that the demo can freeze the
    // desktop (as a long GC pause would) while the browser takes over: it cannot learn of the
    // takeover from a renewal before its late calls, however slow the machine.
    ScheduledExecutorService desktopRenewals = Executors.newSingleThreadScheduledExecutor();
    CountDownLatch desktopWakes = new CountDownLatch(1);
    try (DemoDatabase pg = DemoDatabase.start(options);
        HikariDataSource pool = pg.pool("devices", 4);
        LeaseStore store = devices(pool, options, signing).build();
        LeaseStore desktopStore =
            devices(pool, options, signing).scheduler(desktopRenewals).build()) {
      LeaseSchema.defaults().apply(pool);
      out.println(
          "MCP demo: files MCP server as a child process over stdio; database " + pg.describe());
      McpSyncClient mcp = startServer(dir, TokenKeySet.of(signing.verificationKey()).toText());
      try {
        Lease desktopLease =
            desktopStore.tryAcquire(SESSION, "acct-7").acquiredLease().orElseThrow();
        McpRunFence desktop = McpRunFence.of(desktopLease);
        call(out, "desktop", desktopLease.fence(), desktop, mcp, "desktop: 3 days in Lisbon");

        // The desktop freezes: its renewals wait. The user opens the conversation in a browser,
        // which takes the session over.
        desktopRenewals.execute(
            () -> {
              try {
                desktopWakes.await();
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            });
        store.admin().forceRelease(SESSION, "ops", "continued in the browser");
        Lease browserLease = store.tryAcquire(SESSION, "acct-7").acquiredLease().orElseThrow();
        McpRunFence browser = McpRunFence.of(browserLease);
        call(out, "browser", browserLease.fence(), browser, mcp, "browser: 2 days in Lisbon");

        // The desktop has not noticed yet (its next renewal would tell it) and calls again.
        call(
            out,
            "desktop",
            desktopLease.fence(),
            desktop,
            mcp,
            "desktop: add a day trip to Sintra");
        call(out, "desktop", desktopLease.fence(), desktop, mcp, "desktop: book the train");
        desktopWakes.countDown();
        String content = Files.readString(dir.resolve("world").resolve(FILE));
        out.println("world: " + FILE + " = \"" + content + "\"");
        browserLease.release();
        return new Verdict(content, desktop.stopped().isPresent());
      } finally {
        desktopWakes.countDown();
        mcp.closeGracefully();
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } finally {
      desktopRenewals.shutdownNow();
    }
  }

  /** A store of a device: the account's own runs, the operator's force release, signed tokens. */
  private static LeaseStoreBuilder devices(
      HikariDataSource pool, DemoOptions options, SigningKey signing) {
    return LeaseStore.builder(pool)
        .accessPolicy(AccessPolicy.callerOwnsAccount().withAdministrators(Set.of("ops")))
        .ttl(options.ttl())
        .tokenSigningKey(signing);
  }

  private static void call(
      PrintStream out,
      String device,
      long fence,
      McpRunFence run,
      McpSyncClient mcp,
      String content) {
    CallToolRequest request =
        CallToolRequest.builder("write_file")
            .arguments(Map.of("path", FILE, "content", content))
            .build();
    boolean stoppedBefore = run.stopped().isPresent();
    try {
      // region mcp-client
      // McpRunFence run = McpRunFence.of(lease): one per run; the token rides in _meta
      CallToolResult r = run.callTool(mcp, request); // RunStoppedException: stop the run
      // endregion
      String text =
          r.content().stream()
              .filter(c -> c instanceof McpSchema.TextContent)
              .map(c -> ((McpSchema.TextContent) c).text())
              .findFirst()
              .orElse("(no text)");
      out.println(device + " (fence " + fence + "): write \"" + content + "\" -> " + text);
    } catch (RunStoppedException e) {
      out.println(
          device
              + " (fence "
              + fence
              + "): write \""
              + content
              + "\" -> REFUSED "
              + e.stop().reason()
              + (stoppedBefore || e.stop().detail().contains("refused locally")
                  ? ", locally: the run was already stopped, nothing was sent"
                  : " by the server; the tool did not run, and the run stops"));
    }
  }

  private static McpSyncClient startServer(Path dir, String keys) {
    ServerParameters server =
        ServerParameters.builder(Path.of(System.getProperty("java.home"), "bin", "java").toString())
            .args(
                "-cp",
                System.getProperty("java.class.path"),
                FilesMcpServer.class.getName(),
                dir.resolve("world").toString(),
                dir.resolve("tools.jsonl").toString(),
                keys)
            .build();
    McpSyncClient client =
        McpClient.sync(
                new StdioClientTransport(server, new JacksonMcpJsonMapper(new ObjectMapper())))
            .requestTimeout(Duration.ofSeconds(60))
            .build();
    client.initialize();
    return client;
  }
}
