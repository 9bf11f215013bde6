package io.leasehold.adapters.tool;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * Tools for tests, written as lambdas: a name, a body ({@link FencedTool.Body}) and, for an
 * idempotent tool, its key.
 */
public final class TestTools {
  private TestTools() {}

  /** The arguments of a call whose arguments do not matter to the test. */
  public static final JsonNode ARGS = JsonNodeFactory.instance.objectNode().put("x", 1);

  /**
   * A database for a test class of the PostgreSQL journal: the journal's tables, default prefix,
   * made once in a template.
   *
   * @param name the template's name, unique among the test classes
   * @return the extension to register
   */
  public static io.leasehold.testing.TestDatabaseExtension journalDatabase(String name) {
    return io.leasehold.testing.TestDatabaseExtension.withTemplate(
        name, ds -> ToolJournalSchema.defaults().apply(ds));
  }

  /**
   * An executor on {@code journal} that trusts every token; the caller adds its tools and the rest.
   *
   * @param journal the executor's journal
   * @return the executor's builder
   */
  public static FencedToolExecutor.Builder trustingExecutor(ToolJournal journal) {
    return FencedToolExecutor.builder()
        .verifier(io.leasehold.fencing.TokenVerifier.trustEveryWriter())
        .journal(journal);
  }

  /**
   * A call as an executor journals it before it runs: intended, no outcome yet.
   *
   * @param callId the call's id
   * @param tool the tool's name
   * @param token the token it runs under
   * @param arguments its arguments
   * @param idempotencyKey its idempotency key, if the tool has one
   * @return the call
   */
  public static ToolCall intent(
      java.util.UUID callId,
      String tool,
      io.leasehold.fencing.FencingToken token,
      JsonNode arguments,
      java.util.Optional<String> idempotencyKey) {
    return new ToolCall(
        callId,
        tool,
        token,
        arguments,
        idempotencyKey,
        ToolCall.State.INTENDED,
        java.util.Optional.empty(),
        java.util.Optional.empty());
  }

  /**
   * A tool without an idempotency key.
   *
   * @param name its name
   * @param body what it does
   * @return the tool
   */
  public static FencedTool tool(String name, FencedTool.Body body) {
    return FencedTool.withInvocation(name, body);
  }

  /**
   * An idempotent tool keyed by one of its arguments, that counts its runs and answers a fixed
   * text.
   *
   * @param name the tool's name
   * @param keyField the argument whose text is the idempotency key
   * @param runs counts the runs
   * @param answer the text it answers
   * @return the tool
   */
  public static FencedTool idempotentCounting(
      String name, String keyField, AtomicInteger runs, String answer) {
    return idempotent(
        name,
        arguments -> arguments.get(keyField).asText(),
        invocation -> {
          runs.incrementAndGet();
          return JsonNodeFactory.instance.textNode(answer);
        });
  }

  /**
   * An idempotent tool.
   *
   * @param name its name
   * @param key the idempotency key of a call's arguments (null for none)
   * @param body what it does
   * @return the tool
   */
  public static FencedTool idempotent(
      String name, Function<JsonNode, String> key, FencedTool.Body body) {
    return new LambdaTool(name, body, key);
  }
}
