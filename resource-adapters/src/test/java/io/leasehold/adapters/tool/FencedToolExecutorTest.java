package io.leasehold.adapters.tool;

import static io.leasehold.adapters.tool.TestTools.idempotent;
import static io.leasehold.adapters.tool.TestTools.tool;
import static io.leasehold.adapters.tool.TestTools.trustingExecutor;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.StaleFenceException;
import io.leasehold.fencing.TokenVerifier;
import io.leasehold.testkit.ChildJvm;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The tool executor beyond the guard contract: journal, in-doubt calls, idempotency, parallelism.
 */
class FencedToolExecutorTest {
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;
  @TempDir Path dir;
  private final LeaseKey key = LeaseKey.of("acct", "chat");

  private FencingToken token(long fence) {
    return new FencingToken(key, fence, UUID.randomUUID());
  }

  @Test
  void callOfAKilledRunIsInDoubtForTheNextRun() throws Exception {
    Path journal = dir.resolve("tools.jsonl");
    try (ChildJvm child = ChildJvm.start(HangingToolMain.class, journal.toString(), "3")) {
      child.awaitLine("CALLING ", 60);
      child.kill();
    }
    FencedToolExecutor next =
        trustingExecutor(FileToolJournal.open(journal))
            .tool(tool("charge_card", inv -> JSON.nullNode()))
            .build();
    List<ToolCall> doubt = next.inDoubt(token(4));
    assertThat(doubt).hasSize(1);
    ToolCall call = doubt.get(0);
    assertThat(call.state()).isEqualTo(ToolCall.State.STARTED);
    assertThat(call.tool()).isEqualTo("charge_card");
    assertThat(call.token().fence()).isEqualTo(3);
    // Issue 27: secrets redacted by default; the shape of the arguments stays.
    assertThat(call.arguments().get("amount").asText()).isEqualTo("<redacted>");
    // The killed run's own fence sees no earlier run's calls.
    assertThat(next.inDoubt(token(3))).isEmpty();
  }

  @Test
  void journalRecordsEveryOutcome() {
    MemoryToolJournal journal = new MemoryToolJournal();
    FencedToolExecutor tools =
        trustingExecutor(journal)
            .tool(tool("ok", inv -> JSON.textNode("done")))
            .tool(
                tool(
                    "boom",
                    inv -> {
                      throw new IllegalStateException("downstream 503");
                    }))
            .build();
    ToolResult ok = tools.call(token(5), "ok", JSON.objectNode());
    assertThat(ok.value().asText()).isEqualTo("done");
    assertThatThrownBy(() -> tools.call(token(5), "boom", JSON.objectNode()))
        .isInstanceOfSatisfying(
            ToolCallFailedException.class,
            e -> {
              assertThat(e.tool()).isEqualTo("boom");
              assertThat(e.getCause()).hasMessage("downstream 503");
            });
    assertThatThrownBy(() -> tools.call(token(4), "ok", JSON.objectNode()))
        .isInstanceOf(StaleFenceException.class);
    assertThat(tools.calls(key))
        .extracting(ToolCall::state)
        // Issue 27: a stale call adds nothing to the journal.
        .containsExactly(ToolCall.State.FINISHED, ToolCall.State.FAILED);
    assertThat(tools.calls(key).get(0).result()).contains(JSON.textNode("done"));
    assertThat(tools.calls(key).get(1).error())
        .get()
        .asString()
        .contains("IllegalStateException")
        .doesNotContain("downstream 503");
    assertThat(tools.inDoubt(token(6))).isEmpty();
  }

  /**
   * Issue 27, finding 10: the default journal stored argument values and exception messages in
   * clear. The default now redacts both; {@link JournalRedaction#none()} is the named opt-out.
   */
  @Test
  void argumentValuesAndErrorMessagesAreRedactedByDefault() {
    com.fasterxml.jackson.databind.node.ObjectNode args =
        JSON.objectNode().put("card", "4111-1111");
    args.putArray("to").add("ada@example.com");
    FencedToolExecutor redacting =
        trustingExecutor(new MemoryToolJournal())
            .tool(
                tool(
                    "pay",
                    inv -> {
                      assertThat(inv.arguments().get("card").asText())
                          .isEqualTo("4111-1111"); // the tool sees all
                      throw new IllegalStateException("card 4111-1111 declined");
                    }))
            .build();
    assertThatThrownBy(() -> redacting.call(token(1), "pay", args))
        .isInstanceOf(ToolCallFailedException.class);
    ToolCall journaled = redacting.calls(key).get(0);
    assertThat(journaled.arguments().toString()).doesNotContain("4111", "ada@");
    assertThat(journaled.arguments().get("to").get(0).asText()).isEqualTo("<redacted>");
    assertThat(journaled.error()).get().asString().doesNotContain("4111");

    FencedToolExecutor clear =
        trustingExecutor(new MemoryToolJournal())
            .redaction(JournalRedaction.none())
            .tool(tool("pay", inv -> JSON.textNode("paid")))
            .build();
    clear.call(token(1), "pay", args);
    assertThat(clear.calls(key).get(0).arguments()).isEqualTo(args);
  }

  @Test
  void toolsReceiveTheTokenToForward() {
    List<FencingToken> seen = new ArrayList<>();
    FencedToolExecutor tools =
        trustingExecutor(new MemoryToolJournal())
            .tool(
                tool(
                    "http",
                    inv -> {
                      seen.add(FencingToken.parse(inv.token().toText()));
                      return JSON.nullNode();
                    }))
            .build();
    FencingToken t = token(8);
    tools.call(t, "http", JSON.objectNode());
    assertThat(seen).containsExactly(t);
  }

  @Test
  void idempotentToolIsAnsweredFromTheJournalOnRepeat() {
    AtomicInteger invocations = new AtomicInteger();
    FencedTool sendEmail =
        idempotent(
            "send_email",
            arguments -> arguments.get("messageId").asText(),
            invocation -> {
              assertThat(invocation.idempotencyKey()).contains("msg-1");
              return JSON.textNode("sent #" + invocations.incrementAndGet());
            });
    Path journal = dir.resolve("tools.jsonl");
    ObjectNode args = JSON.objectNode().put("messageId", "msg-1");
    FencedToolExecutor first =
        trustingExecutor(FileToolJournal.open(journal)).tool(sendEmail).build();
    assertThat(first.call(token(1), "send_email", args).replayed()).isFalse();
    FencedToolExecutor second =
        trustingExecutor(FileToolJournal.open(journal)).tool(sendEmail).build();
    ToolResult again = second.call(token(2), "send_email", args);
    assertThat(again.replayed()).isTrue();
    assertThat(again.value().asText()).isEqualTo("sent #1");
    assertThat(invocations).hasValue(1);
  }

  @Test
  void oneRunCallsToolsInParallel() throws Exception {
    int parallel = 4;
    CountDownLatch allInside = new CountDownLatch(parallel);
    FencedToolExecutor tools =
        trustingExecutor(FileToolJournal.open(dir.resolve("tools.jsonl")))
            .tool(
                tool(
                    "wait_for_all",
                    inv -> {
                      allInside.countDown();
                      try {
                        // Returns only if all calls are inside the tool at once.
                        return JSON.booleanNode(allInside.await(30, TimeUnit.SECONDS));
                      } catch (InterruptedException e) {
                        throw new IllegalStateException(e);
                      }
                    }))
            .build();
    FencingToken t = token(3);
    ExecutorService pool = Executors.newFixedThreadPool(parallel);
    List<Future<ToolResult>> results = new ArrayList<>();
    for (int i = 0; i < parallel; i++) {
      results.add(pool.submit(() -> tools.call(t, "wait_for_all", JSON.objectNode())));
    }
    for (Future<ToolResult> r : results) {
      assertThat(r.get(60, TimeUnit.SECONDS).value().asBoolean()).isTrue();
    }
    pool.shutdown();
  }

  @Test
  void badInputIsRefusedBeforeAnythingIsJournaled() {
    MemoryToolJournal journal = new MemoryToolJournal();
    FencedToolExecutor tools =
        trustingExecutor(journal).tool(tool("ok", inv -> JSON.nullNode())).build();
    assertThatThrownBy(() -> tools.call(token(1), "nope", JSON.objectNode()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("unknown tool");
    assertThatThrownBy(() -> tools.call(token(1), "ok", null))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> tools.call(null, "ok", JSON.objectNode()))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(journal.calls(key)).isEmpty();
    assertThatThrownBy(
            () ->
                FencedToolExecutor.builder()
                    .verifier(TokenVerifier.trustEveryWriter())
                    .tool(tool("ok", inv -> null))
                    .build())
        .hasMessageContaining("journal");
    assertThatThrownBy(
            () ->
                FencedToolExecutor.builder()
                    .verifier(TokenVerifier.trustEveryWriter())
                    .tool(tool("ok", inv -> null))
                    .tool(tool("ok", inv -> null)))
        .hasMessageContaining("registered already");
  }

  @Test
  void aLineTornByACrashIsCutOff() throws Exception {
    Path journal = dir.resolve("tools.jsonl");
    FencedToolExecutor tools =
        trustingExecutor(FileToolJournal.open(journal))
            .tool(tool("ok", inv -> JSON.nullNode()))
            .build();
    tools.call(token(2), "ok", JSON.objectNode());
    Files.writeString(
        journal,
        "{\"event\":\"intended\",\"call\":\"12",
        StandardCharsets.UTF_8,
        StandardOpenOption.APPEND);
    FileToolJournal reopened = FileToolJournal.open(journal);
    assertThat(reopened.calls(key)).hasSize(1);
    assertThat(reopened.highWaterMark(key)).hasValue(2);
    assertThat(Files.readString(journal)).endsWith("}\n");
  }
}
