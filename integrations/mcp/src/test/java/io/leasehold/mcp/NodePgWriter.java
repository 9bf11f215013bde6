package io.leasehold.mcp;

import io.leasehold.fencing.FencingToken;
import io.leasehold.testing.TestDatabase;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * The Node package's PostgreSQL guard in a child process ({@code fixtures/pg-writer.mjs}): it reads
 * a token a line, and answers a line for each ({@code admitted N}, {@code stale N} or {@code error
 * ...}).
 */
final class NodePgWriter implements AutoCloseable {
  private final Process node;
  private final PrintWriter toNode;
  private final BufferedReader fromNode;
  private final ExecutorService reader = Executors.newSingleThreadExecutor();

  private NodePgWriter(Process node) {
    this.node = node;
    this.toNode = new PrintWriter(node.getOutputStream(), true, StandardCharsets.UTF_8);
    this.fromNode =
        new BufferedReader(new InputStreamReader(node.getInputStream(), StandardCharsets.UTF_8));
  }

  /** The test database as the {@code postgresql://user:password@...} URL Node connects to. */
  static String url(TestDatabase d) {
    return d.jdbcUrl()
        .replace(
            "jdbc:postgresql://",
            "postgresql://" + d.server().user() + ":" + d.server().password() + "@");
  }

  /** Starts the writer on {@code url}, with the fixture's further arguments (its lock timeout). */
  static NodePgWriter start(String url, String... more) throws Exception {
    List<String> command =
        new ArrayList<>(
            List.of(
                "node",
                CrossLanguageTest.PACKAGE.resolve("fixtures/pg-writer.mjs").toString(),
                url));
    command.addAll(List.of(more));
    return new NodePgWriter(
        new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start());
  }

  /** Sends {@code token} to be written and returns the answer, waiting at most 30 s for it. */
  String write(FencingToken token) throws Exception {
    toNode.println(token.toText());
    return reader.submit(fromNode::readLine).get(30, TimeUnit.SECONDS);
  }

  @Override
  public void close() throws Exception {
    reader.shutdownNow();
    toNode.close();
    node.destroy();
    node.waitFor(30, TimeUnit.SECONDS);
    fromNode.close();
  }
}
