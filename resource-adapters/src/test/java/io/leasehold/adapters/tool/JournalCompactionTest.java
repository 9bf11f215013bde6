package io.leasehold.adapters.tool;

import static io.leasehold.adapters.tool.TestTools.idempotent;
import static io.leasehold.adapters.tool.TestTools.trustingExecutor;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.leasehold.fencing.AdminPolicy;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.StaleFenceException;
import io.leasehold.fencing.TokenVerifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 13: a journal only grew (100k calls took 5 s and 74 MiB to open). Compaction keeps what is
 * live (marks, resets, calls in doubt, finished idempotent calls) and drops the rest, and a second
 * journal instance on the same file follows it.
 */
class JournalCompactionTest {
  private static final LeaseKey KEY = LeaseKey.of("acct", "chat-1");
  private static final JsonNode ARGS = JsonNodeFactory.instance.objectNode().put("x", 1);
  @TempDir Path dir;

  private static FencingToken token(long fence) {
    return new FencingToken(KEY, fence, UUID.nameUUIDFromBytes(Long.toString(fence).getBytes()));
  }

  /** An idempotent tool whose one invoice's payment counts in {@code payments}. */
  private static FencedTool payTool(AtomicInteger payments) {
    return idempotent(
        "pay",
        arguments -> "invoice-42",
        invocation -> JsonNodeFactory.instance.numberNode(payments.incrementAndGet()));
  }

  @Test
  void compactionKeepsWhatIsLiveAndDropsHistory() throws Exception {
    Path file = dir.resolve("tools.jsonl");
    AtomicInteger payments = new AtomicInteger();
    FencedTool pay = payTool(payments);
    FileToolJournal journal = FileToolJournal.open(file);
    FileToolJournal other = FileToolJournal.open(file); // another process's view, in effect
    FencedToolExecutor tools =
        FencedToolExecutor.builder()
            .verifier(TokenVerifier.trustEveryWriter())
            .adminPolicy(AdminPolicy.operators(Set.of("ops")))
            .journal(journal)
            .tool(FencedTool.of("echo", a -> a))
            .tool(pay)
            .build();
    for (int i = 0; i < 200; i++) {
      tools.call(token(3), "echo", ARGS);
    }
    tools.call(token(3), "pay", ARGS);
    // A call of run 3 left in doubt (its process died after admission).
    UUID inDoubt = UUID.randomUUID();
    journal.intended(TestTools.intent(inDoubt, "echo", token(3), ARGS, Optional.empty()));
    journal.admitAndStart(token(3), inDoubt);
    tools.resetMark(KEY, 2, "ops", "test reset");
    tools.call(token(5), "echo", ARGS);
    long before = Files.size(file);

    FileToolJournal.Compaction c = journal.compact();
    assertThat(c.bytesBefore()).isEqualTo(before);
    assertThat(c.callsKept()).isEqualTo(2); // the finished payment and the call in doubt
    assertThat(Files.size(file)).isEqualTo(c.bytesAfter()).isLessThan(before / 20);

    for (FileToolJournal j : new FileToolJournal[] {journal, other, FileToolJournal.open(file)}) {
      assertThat(j.highWaterMark(KEY)).hasValue(5);
      assertThat(j.calls(KEY)).extracting(ToolCall::callId).contains(inDoubt).hasSize(2);
      assertThat(j.markResets())
          .singleElement()
          .satisfies(r -> assertThat(r.reason()).isEqualTo("test reset"));
      assertThat(j.finishedResult(KEY, "pay", "invoice-42"))
          .hasValueSatisfying(v -> assertThat(v.asInt()).isEqualTo(1));
    }
    assertThatThrownBy(() -> tools.call(token(4), "echo", ARGS))
        .isInstanceOf(StaleFenceException.class);
    assertThat(tools.call(token(6), "pay", ARGS).replayed()).isTrue();
    assertThat(payments).hasValue(1);
    assertThat(tools.inDoubt(token(6))).extracting(ToolCall::callId).containsExactly(inDoubt);
    // The other instance keeps working on the compacted file.
    FencedToolExecutor second = trustingExecutor(other).tool(FencedTool.of("echo", a -> a)).build();
    second.call(token(7), "echo", ARGS);
    assertThat(journal.highWaterMark(KEY)).hasValue(7);
  }

  /**
   * Issue 46, item 11: a reset to 0 dropped the key from the marks file at the next compaction, and
   * the journal's kept calls then gave the key their fence again, refusing the run the operator had
   * let in.
   */
  @Test
  void aResetToZeroSurvivesCompaction() throws Exception {
    Path file = dir.resolve("tools.jsonl");
    FencedTool pay = payTool(new AtomicInteger());
    FileToolJournal journal = FileToolJournal.open(file);
    FencedToolExecutor tools =
        FencedToolExecutor.builder()
            .verifier(TokenVerifier.trustEveryWriter())
            .adminPolicy(AdminPolicy.operators(Set.of("ops")))
            .journal(journal)
            .tool(pay)
            .build();
    tools.call(token(40), "pay", ARGS); // a forged fence's call, kept for retries
    tools.resetMark(KEY, 0, "ops", "forged fence 40, the lease table's fence is 3");
    journal.compact();
    for (FileToolJournal j : new FileToolJournal[] {journal, FileToolJournal.open(file)}) {
      assertThat(j.highWaterMark(KEY)).isEmpty();
    }
    FencedToolExecutor reopened =
        trustingExecutor(FileToolJournal.open(file)).tool(FencedTool.of("echo", a -> a)).build();
    reopened.call(token(3), "echo", ARGS);
    assertThat(reopened.highWaterMark(KEY)).hasValue(3);
  }
}
