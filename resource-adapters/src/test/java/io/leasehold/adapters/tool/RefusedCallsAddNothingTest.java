package io.leasehold.adapters.tool;

import static io.leasehold.adapters.tool.TestTools.trustingExecutor;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.GuardListener;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.StaleFenceException;
import io.leasehold.testing.TestDatabaseExtension;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 27, finding 6 (CONTRACT C21): a stale but validly signed run added one journal row per
 * refused call (500 refusals, 500 rows and 1 MB of arguments in PostgreSQL; 1.1 MiB in the file
 * journal). A refused call now adds nothing; the listener counts it.
 */
class RefusedCallsAddNothingTest {
  @RegisterExtension
  static final TestDatabaseExtension db =
      TestDatabaseExtension.withTemplate(
          "tool_journal_refusals", ds -> ToolJournalSchema.defaults().apply(ds));

  private static final JsonNode BIG =
      JsonNodeFactory.instance.objectNode().put("payload", "x".repeat(2_000));
  private final LeaseKey key = LeaseKey.of("acct", "chat-" + UUID.randomUUID());
  private final AtomicInteger stale = new AtomicInteger();

  private FencedToolExecutor executor(ToolJournal journal) {
    return trustingExecutor(journal)
        .listener(
            (resource, decision) -> {
              if (decision == GuardListener.Decision.STALE) {
                stale.incrementAndGet();
              }
            })
        .tool(FencedTool.of("send", args -> JsonNodeFactory.instance.textNode("sent")))
        .build();
  }

  private void flood(FencedToolExecutor tools) {
    tools.call(new FencingToken(key, 10, UUID.randomUUID()), "send", BIG);
    FencingToken old = new FencingToken(key, 9, UUID.randomUUID());
    for (int i = 0; i < 500; i++) {
      assertThatThrownBy(() -> tools.call(old, "send", BIG))
          .isInstanceOf(StaleFenceException.class);
    }
  }

  @Test
  void thePostgresJournalGainsNoRowForARefusedCall() {
    FencedToolExecutor tools = executor(JdbcToolJournal.create(db.dataSource()));
    flood(tools);
    assertThat(tools.calls(key))
        .singleElement()
        .extracting(ToolCall::state)
        .isEqualTo(ToolCall.State.FINISHED);
    assertThat(stale).hasValue(500);
  }

  @Test
  void theFileJournalDoesNotGrowWithRefusedCalls(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("tools.jsonl");
    FencedToolExecutor tools = executor(FileToolJournal.open(file));
    tools.call(new FencingToken(key, 10, UUID.randomUUID()), "send", BIG);
    long size = Files.size(file);
    flood(tools);
    // Only flood()'s own honest call was added: the same lines as the first, in length.
    assertThat(Files.size(file)).isEqualTo(2 * size);
    assertThat(tools.calls(key))
        .extracting(ToolCall::state)
        .containsExactly(ToolCall.State.FINISHED, ToolCall.State.FINISHED);
    assertThat(stale).hasValue(500);
  }
}
