package io.leasehold.adapters.tool;

import static io.leasehold.adapters.tool.TestTools.trustingExecutor;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.leasehold.adapters.mark.FileMarkStore;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Base64;
import java.util.Comparator;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import java.util.stream.Stream;

/**
 * A file journal in a directory, its key {@link #K} and a tool that counts its runs: what the
 * journal evidence tests (CONTRACT C16) tamper with, and the stale call they expect refused.
 */
final class JournalProbe {
  static final LeaseKey K = LeaseKey.of("acct", "chat");

  final Path dir;
  final Path file;
  final AtomicInteger ran = new AtomicInteger();
  final FencedTool echo =
      FencedTool.of(
          "echo",
          a -> {
            ran.incrementAndGet();
            return a;
          });

  JournalProbe(Path dir) {
    this.dir = dir;
    this.file = dir.resolve("tools.jsonl");
  }

  static FencingToken token(long fence) {
    return new FencingToken(K, fence, new UUID(fence, 42));
  }

  /** An executor on a new journal instance of {@code journal} (another process, in effect). */
  FencedToolExecutor executor(Path journal) {
    return executor(FileToolJournal.open(journal));
  }

  FencedToolExecutor executor(FileToolJournal journal, FencedTool... more) {
    FencedToolExecutor.Builder b = trustingExecutor(journal).tool(echo);
    for (FencedTool t : more) {
      b.tool(t);
    }
    return b.build();
  }

  /** The journal after fence 9 ran the tool. */
  Path journalAt9() {
    executor(file).call(token(9), "echo", JsonNodeFactory.instance.objectNode());
    return file;
  }

  /** Fence 3 is refused by {@code executor} and the tool does not run. */
  void staleRefused(FencedToolExecutor executor) {
    staleRefused(() -> executor);
  }

  /** Fence 3 is refused by a journal opened again on the file (or refused at its open). */
  void staleRefused() {
    staleRefused(() -> executor(file));
  }

  private void staleRefused(Supplier<FencedToolExecutor> executor) {
    int before = ran.get();
    assertThatThrownBy(
            () -> executor.get().call(token(3), "echo", JsonNodeFactory.instance.objectNode()))
        .as("a stale fence 3 after fence 9")
        .isInstanceOf(RuntimeException.class);
    assertThat(ran.get()).isEqualTo(before);
  }

  /**
   * After fence 9, an older-format marks file holding {@code content} planted beside the journal
   * (its mark directory deleted first if {@code markDirectoryGone}): fence 3 stays refused.
   */
  void olderMarksFilePlantedAfter9(boolean markDirectoryGone, String content) throws Exception {
    journalAt9();
    if (markDirectoryGone) {
      deleteTree(markDirectory());
    }
    Files.writeString(olderMarksFile(), content);
    staleRefused();
  }

  Path markDirectory() {
    return dir.resolve("tools.jsonl.marks.d");
  }

  Path olderMarksFile() {
    return dir.resolve("tools.jsonl.marks");
  }

  /** An older marks file's line for {@link #K}: {@code raise} or {@code reset}. */
  static String olderLine(String kind, String fence) {
    return kind + " " + b64("acct") + " " + b64("chat") + " " + fence + "\n";
  }

  /** A second journal, {@code two}, whose marks hold fence 2 for {@link #K}. */
  Path journalAt2() {
    Path two = dir.resolve("two");
    executor(two).call(token(2), "echo", JsonNodeFactory.instance.objectNode());
    return dir.resolve("two.marks.d");
  }

  /** Both of {@link #K}'s mark copies restored from an older backup holding fence 2. */
  void restoreBothCopiesAt2() throws Exception {
    Path lower = journalAt2();
    String name = FileMarkStore.fileName(K);
    for (String sub : new String[] {"marks", "marks-copy"}) {
      Files.copy(
          lower.resolve(sub).resolve(name),
          markDirectory().resolve(sub).resolve(name),
          StandardCopyOption.REPLACE_EXISTING);
    }
  }

  /** Whatever fence 3's call on a journal opened again on the file threw, or "admitted". */
  Object staleCallOutcome() {
    return outcome(
        () -> executor(file).call(token(3), "echo", JsonNodeFactory.instance.objectNode()));
  }

  /** Whatever {@code call} threw, or "admitted". */
  static Object outcome(Runnable call) {
    try {
      call.run();
      return "admitted";
    } catch (RuntimeException e) {
      return e;
    }
  }

  private static String b64(String s) {
    return Base64.getUrlEncoder()
        .withoutPadding()
        .encodeToString(s.getBytes(StandardCharsets.UTF_8));
  }

  static void deleteTree(Path p) throws Exception {
    try (Stream<Path> walk = Files.walk(p)) {
      for (Path q : walk.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(q);
      }
    }
  }
}
