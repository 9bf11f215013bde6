package io.leasehold.adapters.tool;

import static io.leasehold.adapters.tool.JournalProbe.K;
import static io.leasehold.adapters.tool.JournalProbe.deleteTree;
import static io.leasehold.adapters.tool.JournalProbe.olderLine;
import static io.leasehold.adapters.tool.JournalProbe.token;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.StaleFenceException;
import java.nio.file.Files;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * CONTRACT C16: the file journal's own lines are evidence its marks never go below. A compacted
 * journal keeps, per key, the highest fence it admitted; a lost mark directory, an older marks file
 * planted beside it, or a lowered copy never lets a stale fence run the tool.
 */
class JournalEvidenceTest extends JournalProbeTest {
  /**
   * marks.d deleted, and an empty older-format marks file beside the journal: upgraded no lower.
   */
  @Test
  void markDirectoryGoneWithAnEmptyOlderMarksFileBesideIt() throws Exception {
    probe.olderMarksFilePlantedAfter9(true, "");
  }

  /**
   * marks.d deleted, and an older-format marks file naming a lower mark: the mark does not go down.
   */
  @Test
  void markDirectoryGoneWithALowerOlderMarksFile() throws Exception {
    probe.olderMarksFilePlantedAfter9(true, olderLine("raise", "2"));
  }

  /**
   * A compacted journal (every call finished, no idempotency key) and its marks directory deleted.
   */
  @Test
  void compactedJournalThenMarkDirectoryGone() throws Exception {
    FileToolJournal j = FileToolJournal.open(probe.file);
    probe.executor(j).call(token(9), "echo", JsonNodeFactory.instance.objectNode());
    j.compact();
    deleteTree(probe.markDirectory());
    probe.staleRefused();
  }

  /** marks.d deleted while the journal is open in this process; same executor. */
  @Test
  void markDirectoryDeletedWhileOpen() throws Exception {
    FencedToolExecutor e1 = probe.executor(probe.file);
    e1.call(token(9), "echo", JsonNodeFactory.instance.objectNode());
    deleteTree(probe.markDirectory());
    probe.staleRefused(e1);
  }

  /** marks/ emptied, marks-copy/ kept: the copy's mark counts. */
  @Test
  void markCopyLoweredAndPrimaryDeleted() throws Exception {
    probe.journalAt9();
    deleteTree(probe.markDirectory().resolve("marks"));
    Files.createDirectory(probe.markDirectory().resolve("marks"));
    probe.staleRefused();
  }

  /**
   * A non-empty compacted journal (key A has a call in doubt, key K only finished calls) whose mark
   * directory is gone: both keys are refused as lost, K from its compacted evidence line.
   */
  @Test
  void nonEmptyCompactedJournalThenMarkDirectoryGone() throws Exception {
    FileToolJournal j = FileToolJournal.open(probe.file);
    FencedTool boom =
        FencedTool.of(
            "boom",
            a -> {
              throw new AssertionError("tool died mid-call");
            });
    FencedToolExecutor e1 = probe.executor(j, boom);
    LeaseKey a = LeaseKey.of("acct", "other");
    JsonNode none = JsonNodeFactory.instance.objectNode();
    assertThatThrownBy(() -> e1.call(new FencingToken(a, 4, new UUID(4, 4)), "boom", none))
        .as("the call stays STARTED: in doubt")
        .isInstanceOf(Throwable.class);
    e1.call(token(9), "echo", none);
    j.compact();
    assertThat(Files.size(probe.file)).isPositive();
    deleteTree(probe.markDirectory());
    FencedToolExecutor e2 = probe.executor(probe.file);
    assertThatThrownBy(() -> e2.call(new FencingToken(a, 3, new UUID(3, 3)), "echo", none))
        .as("the key the journal names is lost")
        .isInstanceOf(RuntimeException.class);
    probe.staleRefused(e2);
  }

  /**
   * The repair: a mark below the journal's evidence refuses the key, naming the reset; an
   * operator's reset restarts the evidence, in journal order, and a compaction after it keeps the
   * reset's evidence, not the fences admitted before it.
   */
  @Test
  void anOperatorsResetRestartsTheEvidenceAndCompactionKeepsIt() throws Exception {
    probe.journalAt9();
    deleteTree(probe.markDirectory());
    FileToolJournal reopened = FileToolJournal.open(probe.file);
    assertThatThrownBy(() -> reopened.admit(token(10)))
        .as("a key whose marks were lost is refused, even for a higher fence")
        .hasMessageContaining("resetMark");

    reopened.resetMark(K, 2, "ops", "the forged fence 9 was never the lease's");
    int before = probe.ran.get();
    probe.executor(reopened).call(token(3), "echo", JsonNodeFactory.instance.objectNode());
    assertThat(probe.ran.get()).isEqualTo(before + 1);

    reopened.compact();
    FileToolJournal afterCompaction = FileToolJournal.open(probe.file);
    assertThat(afterCompaction.admit(token(3)).token().fence()).isEqualTo(3);
    assertThatThrownBy(() -> afterCompaction.admit(token(2)))
        .isInstanceOf(StaleFenceException.class);
    assertThat(Files.readString(probe.file))
        .contains("\"event\":\"highest_admitted\"")
        .doesNotContain("\"fence\":9");
  }
}
