package io.leasehold.adapters.tool;

import static io.leasehold.adapters.tool.TestTools.trustingExecutor;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.leasehold.adapters.ResourceAccessException;
import io.leasehold.adapters.mark.FileMarkStore;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.StaleFenceException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 13 (CONTRACT C16), the tool journal's findings: a malformed line bricked every call with a
 * NullPointerException, a journal truncated to its first line let stale fence 5 in, four concurrent
 * calls with one idempotency key ran the tool four times, a symlinked path failed with
 * OverlappingFileLockException, and the files were world-readable.
 */
class JournalFailsClosedTest {
  private static final LeaseKey KEY = LeaseKey.of("acct", "chat-1");
  @TempDir Path dir;

  private static FencingToken token(long fence) {
    return new FencingToken(KEY, fence, UUID.nameUUIDFromBytes(Long.toString(fence).getBytes()));
  }

  private static FencedToolExecutor executor(Path journal, FencedTool tool) {
    return trustingExecutor(FileToolJournal.open(journal)).tool(tool).build();
  }

  private static final JsonNode ARGS = JsonNodeFactory.instance.objectNode().put("x", 1);

  @Test
  void aMalformedLineIsAClearErrorNamingTheLineNotANullPointer() throws Exception {
    Path journal = dir.resolve("tools.jsonl");
    executor(journal, FencedTool.of("echo", a -> a)).call(token(3), "echo", ARGS);
    List<String> lines = Files.readAllLines(journal);
    for (String damage :
        List.of(
            "",
            "{not json",
            "{\"event\":\"started\"}",
            "{\"event\":\"nonsense\",\"call\":\"x\"}")) {
      List<String> damaged = new ArrayList<>(lines);
      damaged.add(1, damage);
      Files.write(journal, damaged);
      assertThatThrownBy(() -> executor(journal, FencedTool.of("echo", a -> a)))
          .as("journal with '%s' on line 2", damage)
          .isInstanceOf(ResourceAccessException.class)
          .hasMessageContaining("line 2 is damaged")
          .hasMessageContaining("ResetMarkCommand")
          .rootCause()
          .isNotInstanceOf(NullPointerException.class);
    }
  }

  @Test
  void aJournalTruncatedToItsFirstLineKeepsItsMarks() throws Exception {
    Path journal = dir.resolve("tools.jsonl");
    FencedToolExecutor tools = executor(journal, FencedTool.of("echo", a -> a));
    tools.call(token(3), "echo", ARGS);
    tools.call(token(10), "echo", ARGS);
    List<String> lines = Files.readAllLines(journal);
    Files.write(journal, lines.subList(0, 1));
    FencedToolExecutor reopened = executor(journal, FencedTool.of("echo", a -> a));
    assertThatThrownBy(() -> reopened.call(token(5), "echo", ARGS))
        .isInstanceOf(StaleFenceException.class);
    assertThat(FileToolJournal.open(journal).highWaterMark(KEY)).hasValue(10);
    Files.delete(journal);
    assertThat(FileToolJournal.open(journal).highWaterMark(KEY)).hasValue(10);
  }

  @Test
  void aJournalThatShrinksWhileInUseRefusesEveryCall() throws Exception {
    Path journal = dir.resolve("tools.jsonl");
    FencedToolExecutor tools = executor(journal, FencedTool.of("echo", a -> a));
    tools.call(token(3), "echo", ARGS);
    Files.write(journal, new byte[0]);
    assertThatThrownBy(() -> tools.call(token(3), "echo", ARGS))
        .isInstanceOf(ResourceAccessException.class)
        .hasMessageContaining("shrank");
  }

  @Test
  void concurrentCallsWithOneIdempotencyKeyRunTheToolOnce() throws Exception {
    IdempotentRace.runsTheToolOnce(FileToolJournal.open(dir.resolve("tools.jsonl")), token(7));
  }

  @Test
  void oneJournalThroughASymlinkedDirectoryIsOneJournal() throws Exception {
    Path real = Files.createDirectories(dir.resolve("real"));
    Path link = Files.createSymbolicLink(dir.resolve("link"), real);
    FencedToolExecutor a = executor(real.resolve("tools.jsonl"), FencedTool.of("echo", x -> x));
    FencedToolExecutor b = executor(link.resolve("tools.jsonl"), FencedTool.of("echo", x -> x));
    ExecutorService pool = Executors.newFixedThreadPool(2);
    List<Future<?>> fs = new ArrayList<>();
    for (FencedToolExecutor e : List.of(a, b)) {
      fs.add(
          pool.submit(
              () -> {
                for (int i = 0; i < 50; i++) {
                  e.call(token(3), "echo", ARGS);
                }
                return null;
              }));
    }
    for (Future<?> f : fs) {
      f.get(60, TimeUnit.SECONDS);
    }
    pool.shutdown();
    assertThat(a.calls(KEY)).hasSize(100);
  }

  @Test
  void theJournalsFilesAreReadableByTheirOwnerOnly() throws Exception {
    Path journal = dir.resolve("tools.jsonl");
    executor(journal, FencedTool.of("echo", a -> a)).call(token(3), "echo", ARGS);
    String mark = FileMarkStore.fileName(KEY);
    for (String f :
        List.of(
            "tools.jsonl",
            "tools.jsonl.marks.d/marks/" + mark,
            "tools.jsonl.marks.d/marks-copy/" + mark,
            "tools.jsonl.lock")) {
      assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.resolve(f))))
          .as(f)
          .isEqualTo("rw-------");
    }
    for (String d :
        List.of(
            "tools.jsonl.marks.d", "tools.jsonl.marks.d/marks", "tools.jsonl.marks.d/marks-copy")) {
      assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.resolve(d))))
          .as(d)
          .isEqualTo("rwx------");
    }
  }

  /** Issue 13: the journal held full tool arguments and results; a redaction hook covers both. */
  @Test
  void aRedactionKeepsSecretsOutOfTheJournalButNotOutOfTheTool() throws Exception {
    Path journal = dir.resolve("tools.jsonl");
    List<String> seenByTool = new ArrayList<>();
    FencedToolExecutor tools =
        trustingExecutor(FileToolJournal.open(journal))
            .redaction(
                new JournalRedaction() {
                  @Override
                  public JsonNode arguments(String tool, JsonNode arguments) {
                    return ((com.fasterxml.jackson.databind.node.ObjectNode) arguments.deepCopy())
                        .put("password", "***");
                  }

                  @Override
                  public JsonNode result(String tool, JsonNode result) {
                    return JsonNodeFactory.instance.textNode("[redacted]");
                  }
                })
            .tool(
                FencedTool.of(
                    "login",
                    a -> {
                      seenByTool.add(a.get("password").asText());
                      return JsonNodeFactory.instance.textNode("session-cookie-s3cr3t");
                    }))
            .build();
    ToolResult r =
        tools.call(
            token(3), "login", JsonNodeFactory.instance.objectNode().put("password", "hunter2"));
    assertThat(r.value().asText()).isEqualTo("session-cookie-s3cr3t");
    assertThat(seenByTool).containsExactly("hunter2");
    String written = Files.readString(journal);
    assertThat(written)
        .doesNotContain("hunter2")
        .doesNotContain("s3cr3t")
        .contains("***")
        .contains("[redacted]");
  }
}
