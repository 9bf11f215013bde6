package io.leasehold.adapters.tool;

import static io.leasehold.adapters.tool.TestTools.trustingExecutor;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.TextNode;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.StaleFenceException;
import io.leasehold.testing.TestDatabaseExtension;
import java.nio.file.Path;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link FencedToolExecutor#startRun} and calls of tools the executor does not own, on every
 * journal: a new run shuts out older ones before it calls a tool.
 */
class RunStartTest {
  @RegisterExtension
  static final TestDatabaseExtension db =
      TestDatabaseExtension.withTemplate("run_start", ds -> ToolJournalSchema.defaults().apply(ds));

  @TempDir Path dir;
  private final LeaseKey key = LeaseKey.of("acct", "chat-" + UUID.randomUUID());
  private final AtomicInteger invoked = new AtomicInteger();

  private Supplier<ToolJournal> journals(String kind) {
    return switch (kind) {
      case "memory" -> {
        ToolJournal shared = new MemoryToolJournal();
        yield () -> shared;
      }
      case "file" -> () -> FileToolJournal.open(dir.resolve("tools.jsonl"));
      case "jdbc" -> () -> JdbcToolJournal.create(db.dataSource());
      default -> throw new IllegalArgumentException(kind);
    };
  }

  private static FencedToolExecutor executor(ToolJournal journal) {
    return trustingExecutor(journal).build();
  }

  private FencedTool counting() {
    return FencedTool.of(
        "send",
        args -> {
          invoked.incrementAndGet();
          return TextNode.valueOf("sent");
        });
  }

  @ParameterizedTest(name = "{0} journal")
  @ValueSource(strings = {"memory", "file", "jdbc"})
  void aStartedRunShutsOutOlderRunsBeforeItCallsAnything(String kind) {
    Supplier<ToolJournal> journals = journals(kind);
    FencedToolExecutor desktop = executor(journals.get());
    FencedToolExecutor browser = executor(journals.get()); // another process, on the same journal
    FencingToken older = new FencingToken(key, 5, UUID.randomUUID());
    FencingToken newer = new FencingToken(key, 8, UUID.randomUUID());
    assertThat(
            desktop.call(older, counting(), JsonNodeFactory.instance.objectNode()).value().asText())
        .isEqualTo("sent");

    FencedToolExecutor.RunStart start = browser.startRun(newer);

    assertThat(start.admission().previousMark()).isEqualTo(5);
    assertThat(start.inDoubt()).isEmpty();
    assertThatThrownBy(() -> desktop.call(older, counting(), JsonNodeFactory.instance.objectNode()))
        .isInstanceOf(StaleFenceException.class)
        .hasMessageContaining("already admitted fence 8");
    assertThat(invoked).hasValue(1);
    // Starting again is harmless; a stale start changes nothing.
    assertThat(browser.startRun(newer).admission().previousMark()).isEqualTo(8);
    assertThatThrownBy(() -> desktop.startRun(older)).isInstanceOf(StaleFenceException.class);
    assertThat(journals.get().highWaterMark(key)).hasValue(8);
  }

  @ParameterizedTest(name = "{0} journal")
  @ValueSource(strings = {"memory", "file", "jdbc"})
  void aStartedRunListsTheCallsOfOlderRunsNobodyConfirmed(String kind) {
    Supplier<ToolJournal> journals = journals(kind);
    ToolJournal journal = journals.get();
    FencingToken older = new FencingToken(key, 5, UUID.randomUUID());
    UUID lost = UUID.randomUUID();
    journal.intended(
        TestTools.intent(lost, "charge", older, TextNode.valueOf("order 42"), Optional.empty()));
    journal.admitAndStart(older, lost); // and then the process died

    FencedToolExecutor.RunStart start =
        executor(journals.get()).startRun(new FencingToken(key, 6, UUID.randomUUID()));

    assertThat(start.inDoubt())
        .singleElement()
        .satisfies(
            c -> {
              assertThat(c.callId()).isEqualTo(lost);
              assertThat(c.state()).isEqualTo(ToolCall.State.STARTED);
            });
  }

  @ParameterizedTest(name = "{0} journal")
  @ValueSource(strings = {"memory", "file", "jdbc"})
  void aToolTheExecutorDoesNotOwnIsJournaledUnderItsName(String kind) {
    FencedToolExecutor tools = executor(journals(kind).get());
    FencingToken token = new FencingToken(key, 3, UUID.randomUUID());
    ToolResult r =
        tools.call(token, counting(), JsonNodeFactory.instance.objectNode().put("to", "ada"));
    assertThat(tools.calls(key))
        .singleElement()
        .satisfies(
            c -> {
              assertThat(c.callId()).isEqualTo(r.callId());
              assertThat(c.tool()).isEqualTo("send");
              assertThat(c.state()).isEqualTo(ToolCall.State.FINISHED);
            });
    assertThatThrownBy(
            () -> tools.call(token, (FencedTool) null, JsonNodeFactory.instance.objectNode()))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(tools.toolNames()).isEmpty();
  }
}
