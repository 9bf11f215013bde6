package io.leasehold.adapters.tool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.leasehold.adapters.ResourceAccessException;
import io.leasehold.adapters.mark.FileMarkStore;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.MarkReset;
import io.leasehold.fencing.StaleFenceException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.Comparator;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 47: the file journal keeps its marks in a mark directory ({@code <journal>.marks.d}, the
 * file store's form) instead of an append-only {@code <journal>.marks}. A journal written before
 * (its files built here line by line in the older format) opens with every mark it had, and its
 * audited resets; a journal whose mark directory is gone refuses its keys as lost.
 */
class JournalMarksUpgradeTest {
  private static final LeaseKey BOTH = LeaseKey.of("acct", "in-both-files");
  private static final LeaseKey JOURNAL_ONLY = LeaseKey.of("acct", "only-in-the-journal");
  private static final LeaseKey RESET = LeaseKey.of("acct", "reset-to-zero");
  @TempDir Path dir;

  private static FencingToken token(LeaseKey key, long fence) {
    return new FencingToken(key, fence, new UUID(fence, key.sessionId().hashCode()));
  }

  private static String b64(String s) {
    return Base64.getUrlEncoder()
        .withoutPadding()
        .encodeToString(s.getBytes(StandardCharsets.UTF_8));
  }

  /** A call's two lines as the journal wrote them: intended, then started. */
  private static String startedCall(FencingToken token) {
    String call = UUID.randomUUID().toString();
    String text = token.unsigned().toText();
    return "{\"event\":\"intended\",\"call\":\""
        + call
        + "\",\"tool\":\"echo\",\"token\":\""
        + text
        + "\",\"arguments\":{}}\n"
        + "{\"event\":\"started\",\"call\":\""
        + call
        + "\",\"token\":\""
        + text
        + "\"}\n";
  }

  /**
   * The layout before the mark directory: the journal, with calls and an audited reset, and its
   * marks file, the authority for the keys it names: {@code BOTH} raised to 9 there (the journal,
   * compacted, shows only fence 4), {@code RESET} reset to 0 there (the journal shows fence 6), and
   * {@code JOURNAL_ONLY} not named (a call made before the marks file existed, fence 7).
   */
  private Path olderJournal() throws Exception {
    Path file = dir.resolve("tools.jsonl");
    Files.writeString(
        file,
        startedCall(token(BOTH, 4))
            + startedCall(token(JOURNAL_ONLY, 7))
            + startedCall(token(RESET, 6))
            + "{\"event\":\"mark_reset\",\"accountId\":\"acct\",\"sessionId\":\"reset-to-zero\",\"previous\":6,"
            + "\"mark\":0,\"operator\":\"alice\",\"reason\":\"forged token\",\"at\":\"2026-12-01T10:00:00Z\"}\n");
    Files.writeString(
        dir.resolve("tools.jsonl.marks"),
        "raise "
            + b64("acct")
            + " "
            + b64("in-both-files")
            + " 5\n"
            + "raise "
            + b64("acct")
            + " "
            + b64("in-both-files")
            + " 9\n"
            + "raise "
            + b64("acct")
            + " "
            + b64("reset-to-zero")
            + " 6\n"
            + "reset "
            + b64("acct")
            + " "
            + b64("reset-to-zero")
            + " 0\n");
    return file;
  }

  @Test
  void aJournalWithItsOlderMarksFileOpensWithEveryMark() throws Exception {
    Path file = olderJournal();
    FileToolJournal journal = FileToolJournal.open(file);
    assertThat(journal.highWaterMark(BOTH)).hasValue(9);
    assertThat(journal.highWaterMark(JOURNAL_ONLY)).hasValue(7);
    assertThat(journal.highWaterMark(RESET)).isEmpty();
    assertThat(journal.markResets())
        .extracting(MarkReset::key, MarkReset::newMark, MarkReset::operator)
        .containsExactly(org.assertj.core.groups.Tuple.tuple(RESET, 0L, "alice"));
    assertThatThrownBy(() -> journal.admit(token(BOTH, 8))).isInstanceOf(StaleFenceException.class);
    assertThatThrownBy(() -> journal.admit(token(JOURNAL_ONLY, 6)))
        .isInstanceOf(StaleFenceException.class);
    journal.admit(token(RESET, 1)); // the reset to 0 is kept: any fence goes

    assertThat(dir.resolve("tools.jsonl.marks")).doesNotExist();
    assertThat(dir.resolve("tools.jsonl.marks.d/marks/" + FileMarkStore.fileName(BOTH)))
        .isRegularFile();
    assertThat(dir.resolve("tools.jsonl.marks.d/marks-copy/" + FileMarkStore.fileName(BOTH)))
        .isRegularFile();

    // Compacted and opened again: the marks and the reset stay, now from the mark directory.
    journal.compact();
    FileToolJournal again = FileToolJournal.open(file);
    assertThat(again.highWaterMark(BOTH)).hasValue(9);
    assertThat(again.highWaterMark(JOURNAL_ONLY)).hasValue(7);
    assertThat(again.highWaterMark(RESET)).hasValue(1);
    assertThat(again.markResets()).hasSize(1);
  }

  @Test
  void aJournalWhoseMarkDirectoryIsGoneRefusesItsKeysUntilReset() throws Exception {
    Path file = dir.resolve("tools.jsonl");
    FileToolJournal.open(file)
        .start(
            new ToolCall(
                UUID.randomUUID(),
                "echo",
                token(BOTH, 12),
                com.fasterxml.jackson.databind.node.NullNode.instance,
                java.util.Optional.empty(),
                ToolCall.State.INTENDED,
                java.util.Optional.empty(),
                java.util.Optional.empty()));
    try (Stream<Path> walk = Files.walk(dir.resolve("tools.jsonl.marks.d"))) {
      for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
    FileToolJournal reopened = FileToolJournal.open(file);
    assertThatThrownBy(() -> reopened.admit(token(BOTH, 3)))
        .isInstanceOf(ResourceAccessException.class)
        .hasMessageContaining("lost")
        .hasMessageContaining("fence 12")
        .hasMessageContaining("ResetMarkCommand --tool-journal");
    reopened.resetMark(BOTH, 12, "alice", "marks lost with their directory");
    assertThatThrownBy(() -> reopened.admit(token(BOTH, 11)))
        .isInstanceOf(StaleFenceException.class);
    reopened.admit(token(BOTH, 13));
  }

  @Test
  void aNewJournalStartsWithoutMarks() {
    FileToolJournal journal = FileToolJournal.open(dir.resolve("tools.jsonl"));
    assertThat(journal.highWaterMark(BOTH)).isEmpty();
    journal.admit(token(BOTH, 2));
    assertThat(FileToolJournal.open(dir.resolve("tools.jsonl")).highWaterMark(BOTH)).hasValue(2);
  }
}
