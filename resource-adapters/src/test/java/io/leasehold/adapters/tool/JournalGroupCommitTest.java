package io.leasehold.adapters.tool;

import static io.leasehold.adapters.tool.TestTools.trustingExecutor;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue 30: a call through the file journal forces its journal twice (intent and start in one
 * append, the outcome in another) instead of three times, concurrent calls share a force, and a
 * crash at any step loses nothing and runs nothing twice.
 */
@Timeout(120)
class JournalGroupCommitTest {
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

  @TempDir Path dir;

  private static FencingToken token(long fence) {
    return new FencingToken(LeaseKey.of("acct", "chat"), fence, UUID.randomUUID());
  }

  @Test
  void aCallForcesTheJournalOnceBeforeTheToolAndOnceAfter() {
    FileToolJournal journal = FileToolJournal.open(dir.resolve("tools.jsonl"));
    AtomicInteger forcesSeenByTheTool = new AtomicInteger(-1);
    FencedToolExecutor executor =
        trustingExecutor(journal)
            .tool(
                FencedTool.of(
                    "echo",
                    args -> {
                      forcesSeenByTheTool.set((int) journal.journalForces());
                      return args;
                    }))
            .build();
    FencingToken token = token(1);
    executor.call(token, "echo", JSON.objectNode().put("n", 0)); // raises the mark: its own force
    long before = journal.journalForces();
    for (int i = 1; i <= 10; i++) {
      executor.call(token, "echo", JSON.objectNode().put("n", i));
      // The start was durable before the tool ran.
      assertThat(forcesSeenByTheTool.get()).isEqualTo(before + 2L * (i - 1) + 1);
    }
    assertThat(journal.journalForces() - before).isEqualTo(20);
    assertThat(journal.calls(token.key()))
        .hasSize(11)
        .allMatch(c -> c.state() == ToolCall.State.FINISHED);
  }

  @Test
  void oneForceCoversEveryAppendMadeBeforeIt() throws Exception {
    Path file = dir.resolve("lines");
    Files.createFile(file);
    JournalFile f = new JournalFile(file, 1024);
    long first = f.appendDeferred("a\n".getBytes(StandardCharsets.US_ASCII));
    long second = f.appendDeferred("b\n".getBytes(StandardCharsets.US_ASCII));
    f.forceUpTo(second);
    f.forceUpTo(first); // covered by the force of the later append: no second force
    assertThat(f.forces()).isEqualTo(1);
    long third = f.appendDeferred("c\n".getBytes(StandardCharsets.US_ASCII));
    f.forceUpTo(third);
    assertThat(f.forces()).isEqualTo(2);
    assertThat(Files.readString(file)).isEqualTo("a\nb\nc\n");
  }

  /**
   * A crash at each step of an idempotent call, then the next run retries it ({@link
   * CrashedCalls}).
   */
  @ParameterizedTest
  @ValueSource(strings = {"before-effect", "after-effect", "after-return"})
  void aCrashAtAnyStepLosesNothing(String step) throws Exception {
    Path journalFile = dir.resolve("tools.jsonl");
    CrashedCalls.crashThenRetry(
        journalFile.toString(), () -> FileToolJournal.open(journalFile), dir, step);
  }
}
