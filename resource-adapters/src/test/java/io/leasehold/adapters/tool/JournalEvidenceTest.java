package io.leasehold.adapters.tool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.TokenVerifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.Comparator;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * CONTRACT C16: the file journal's own lines are evidence its marks never go below. A compacted
 * journal keeps, per key, the highest fence it admitted; a lost mark directory, an older marks
 * file planted beside it, or a lowered copy never lets a stale fence run the tool.
 */
class JournalEvidenceTest {
  private static final LeaseKey K = LeaseKey.of("acct", "chat");
  @TempDir Path dir;

  private static FencingToken token(long fence) {
    return new FencingToken(K, fence, new UUID(fence, 42));
  }

  private static String b64(String s) {
    return Base64.getUrlEncoder().withoutPadding().encodeToString(s.getBytes(StandardCharsets.UTF_8));
  }

  private static void deleteTree(Path p) throws Exception {
    try (Stream<Path> walk = Files.walk(p)) {
      for (Path q : walk.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(q);
      }
    }
  }

  private static FencedToolExecutor executor(Path file, FencedTool tool) {
    return FencedToolExecutor.builder().verifier(TokenVerifier.trustEveryWriter())
        .journal(FileToolJournal.open(file)).tool(tool).build();
  }

  private static final AtomicInteger RAN = new AtomicInteger();
  private static final FencedTool ECHO = FencedTool.of("echo", a -> { RAN.incrementAndGet(); return a; });

  /** marks.d deleted, and an older-format marks file (empty) beside the journal: must be lost, not upgraded lower. */
  @Test
  void markDirectoryGoneWithAnEmptyOlderMarksFileBesideIt() throws Exception {
    Path file = dir.resolve("tools.jsonl");
    FencedToolExecutor e1 = executor(file, ECHO);
    e1.call(token(9), "echo", JsonNodeFactory.instance.objectNode());

    deleteTree(dir.resolve("tools.jsonl.marks.d"));
    Files.writeString(dir.resolve("tools.jsonl.marks"), "");
    FencedToolExecutor e2 = executor(file, ECHO);
    int before = RAN.get();
    assertThatThrownBy(() -> e2.call(token(3), "echo", JsonNodeFactory.instance.objectNode()))
        .as("a stale fence 3 after fence 9 was admitted").isInstanceOf(RuntimeException.class);
    assertThat(RAN.get()).isEqualTo(before);
  }

  /** marks.d deleted, and an older-format marks file naming a lower mark: the mark must not go down. */
  @Test
  void markDirectoryGoneWithALowerOlderMarksFile() throws Exception {
    Path file = dir.resolve("tools.jsonl");
    FencedToolExecutor e1 = executor(file, ECHO);
    e1.call(token(9), "echo", JsonNodeFactory.instance.objectNode());
    deleteTree(dir.resolve("tools.jsonl.marks.d"));
    Files.writeString(dir.resolve("tools.jsonl.marks"), "raise " + b64("acct") + " " + b64("chat") + " 2\n");
    FencedToolExecutor e2 = executor(file, ECHO);
    int before = RAN.get();
    assertThatThrownBy(() -> e2.call(token(3), "echo", JsonNodeFactory.instance.objectNode()))
        .as("a stale fence 3 after fence 9 was admitted").isInstanceOf(RuntimeException.class);
    assertThat(RAN.get()).isEqualTo(before);
  }

  /** A compacted journal (every call finished, no idempotency key) and its marks directory deleted. */
  @Test
  void compactedJournalThenMarkDirectoryGone() throws Exception {
    Path file = dir.resolve("tools.jsonl");
    FileToolJournal j = FileToolJournal.open(file);
    FencedToolExecutor e1 = FencedToolExecutor.builder().verifier(TokenVerifier.trustEveryWriter())
        .journal(j).tool(ECHO).build();
    e1.call(token(9), "echo", JsonNodeFactory.instance.objectNode());
    j.compact();
    deleteTree(dir.resolve("tools.jsonl.marks.d"));
    FencedToolExecutor e2 = executor(file, ECHO);
    int before = RAN.get();
    assertThatThrownBy(() -> e2.call(token(3), "echo", JsonNodeFactory.instance.objectNode()))
        .as("a stale fence 3 after fence 9 was admitted").isInstanceOf(RuntimeException.class);
    assertThat(RAN.get()).isEqualTo(before);
  }

  /** marks.d deleted while the journal is open in this process; same executor. */
  @Test
  void markDirectoryDeletedWhileOpen() throws Exception {
    Path file = dir.resolve("tools.jsonl");
    FencedToolExecutor e1 = executor(file, ECHO);
    e1.call(token(9), "echo", JsonNodeFactory.instance.objectNode());
    deleteTree(dir.resolve("tools.jsonl.marks.d"));
    int before = RAN.get();
    assertThatThrownBy(() -> e1.call(token(3), "echo", JsonNodeFactory.instance.objectNode()))
        .isInstanceOf(RuntimeException.class);
    assertThat(RAN.get()).isEqualTo(before);
  }

  /** Only marks/ replaced by a symlink to an empty dir; copy lowered. */
  @Test
  void markCopyLoweredAndPrimaryDeleted() throws Exception {
    Path file = dir.resolve("tools.jsonl");
    FencedToolExecutor e1 = executor(file, ECHO);
    e1.call(token(9), "echo", JsonNodeFactory.instance.objectNode());
    Path md = dir.resolve("tools.jsonl.marks.d");
    deleteTree(md.resolve("marks"));
    Files.createDirectory(md.resolve("marks"));
    FencedToolExecutor e2 = executor(file, ECHO);
    int before = RAN.get();
    assertThatThrownBy(() -> e2.call(token(3), "echo", JsonNodeFactory.instance.objectNode()))
        .isInstanceOf(RuntimeException.class);
    assertThat(RAN.get()).isEqualTo(before);
  }

  /**
   * A non-empty compacted journal (key A has a call in doubt, key K only finished calls) whose mark
   * directory is gone: A is refused as lost, but K starts fresh and its stale fence is admitted.
   */
  @Test
  void nonEmptyCompactedJournalThenMarkDirectoryGone() throws Exception {
    Path file = dir.resolve("tools.jsonl");
    FileToolJournal j = FileToolJournal.open(file);
    FencedTool boom = FencedTool.of("boom", a -> { throw new AssertionError("tool died mid-call"); });
    FencedToolExecutor e1 = FencedToolExecutor.builder().verifier(TokenVerifier.trustEveryWriter())
        .journal(j).tool(ECHO).tool(boom).build();
    LeaseKey a = LeaseKey.of("acct", "other");
    try {
      e1.call(new FencingToken(a, 4, new UUID(4, 4)), "boom", JsonNodeFactory.instance.objectNode());
    } catch (Throwable expected) {
      // the call stays STARTED: in doubt
    }
    e1.call(token(9), "echo", JsonNodeFactory.instance.objectNode());
    j.compact();
    assertThat(Files.size(file)).isPositive();
    deleteTree(dir.resolve("tools.jsonl.marks.d"));
    FencedToolExecutor e2 = executor(file, ECHO);
    assertThatThrownBy(() -> e2.call(new FencingToken(a, 3, new UUID(3, 3)), "echo", JsonNodeFactory.instance.objectNode()))
        .as("the key the journal names is lost").isInstanceOf(RuntimeException.class);
    int before = RAN.get();
    assertThatThrownBy(() -> e2.call(token(3), "echo", JsonNodeFactory.instance.objectNode()))
        .as("a stale fence 3 after fence 9 was admitted").isInstanceOf(RuntimeException.class);
    assertThat(RAN.get()).isEqualTo(before);
  }

  /**
   * The repair: a mark below the journal's evidence refuses the key, naming the reset; an
   * operator's reset restarts the evidence, in journal order, and a compaction after it keeps the
   * reset's evidence, not the fences admitted before it.
   */
  @Test
  void anOperatorsResetRestartsTheEvidenceAndCompactionKeepsIt() throws Exception {
    Path file = dir.resolve("tools.jsonl");
    FileToolJournal j = FileToolJournal.open(file);
    FencedToolExecutor e1 = FencedToolExecutor.builder().verifier(TokenVerifier.trustEveryWriter())
        .journal(j).tool(ECHO).build();
    e1.call(token(9), "echo", JsonNodeFactory.instance.objectNode());
    deleteTree(dir.resolve("tools.jsonl.marks.d"));
    FileToolJournal reopened = FileToolJournal.open(file);
    assertThatThrownBy(() -> reopened.admit(token(10)))
        .as("a key whose marks were lost is refused, even for a higher fence")
        .hasMessageContaining("resetMark");

    reopened.resetMark(K, 2, "ops", "the forged fence 9 was never the lease's");
    FencedToolExecutor e2 = FencedToolExecutor.builder().verifier(TokenVerifier.trustEveryWriter())
        .journal(reopened).tool(ECHO).build();
    int before = RAN.get();
    e2.call(token(3), "echo", JsonNodeFactory.instance.objectNode());
    assertThat(RAN.get()).isEqualTo(before + 1);

    reopened.compact();
    FileToolJournal afterCompaction = FileToolJournal.open(file);
    assertThat(afterCompaction.admit(token(3)).token().fence()).isEqualTo(3);
    assertThatThrownBy(() -> afterCompaction.admit(token(2)))
        .isInstanceOf(io.leasehold.fencing.StaleFenceException.class);
    assertThat(Files.readString(file)).contains("\"event\":\"highest_admitted\"").doesNotContain("\"fence\":9");
  }
}
