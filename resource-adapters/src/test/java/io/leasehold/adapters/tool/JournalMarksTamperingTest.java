package io.leasehold.adapters.tool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.leasehold.adapters.mark.FileMarkStore;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.TokenVerifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.Comparator;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * CONTRACT C16: tampered journal marks (a planted older marks file, its reset line without the
 * journal's record, both copies restored lower, planted links) refuse a stale fence.
 */
class JournalMarksTamperingTest {
  private static final LeaseKey K = LeaseKey.of("acct", "chat");
  @TempDir Path dir;
  private final AtomicInteger ran = new AtomicInteger();
  private final FencedTool echo = FencedTool.of("echo", a -> { ran.incrementAndGet(); return a; });

  private static FencingToken token(long fence) {
    return new FencingToken(K, fence, new UUID(fence, 42));
  }

  private static String b64(String s) {
    return Base64.getUrlEncoder().withoutPadding().encodeToString(s.getBytes(StandardCharsets.UTF_8));
  }

  private FencedToolExecutor executor(Path file) {
    return FencedToolExecutor.builder().verifier(TokenVerifier.trustEveryWriter())
        .journal(FileToolJournal.open(file)).tool(echo).build();
  }

  private void staleRefused(Path file) {
    int before = ran.get();
    assertThatThrownBy(() -> executor(file).call(token(3), "echo", JsonNodeFactory.instance.objectNode()))
        .as("fence 3 after fence 9").isInstanceOf(RuntimeException.class);
    assertThat(ran.get()).isEqualTo(before);
  }

  private Path journalAt9() {
    Path file = dir.resolve("tools.jsonl");
    executor(file).call(token(9), "echo", JsonNodeFactory.instance.objectNode());
    return file;
  }

  /** A stale older-format marks file planted beside a live mark directory (a re-upgrade). */
  @Test
  void olderMarksFileBesideALiveMarkDirectory() throws Exception {
    Path file = journalAt9();
    Files.writeString(dir.resolve("tools.jsonl.marks"), "raise " + b64("acct") + " " + b64("chat") + " 2\n");
    staleRefused(file);
  }

  /** A reset line in a planted older marks file, without the journal's audited mark_reset. */
  @Test
  void plantedResetLineInOlderMarksFile() throws Exception {
    Path file = journalAt9();
    deleteTree(dir.resolve("tools.jsonl.marks.d"));
    Files.writeString(dir.resolve("tools.jsonl.marks"), "reset " + b64("acct") + " " + b64("chat") + " 0\n");
    staleRefused(file);
  }

  /** A damaged older marks file: the upgrade must refuse, not skip the line. */
  @Test
  void damagedOlderMarksFile() throws Exception {
    Path file = journalAt9();
    deleteTree(dir.resolve("tools.jsonl.marks.d"));
    Files.writeString(dir.resolve("tools.jsonl.marks"), "raise " + b64("acct") + " " + b64("chat") + " 9x\ngarbage\n");
    staleRefused(file);
  }

  /** Both mark copies restored from an older backup while closed; the journal still shows fence 9. */
  @Test
  void bothCopiesLoweredWhileClosed() throws Exception {
    Path file = journalAt9();
    Path two = dir.resolve("two");
    FencedToolExecutor at2 = executor(two);
    at2.call(token(2), "echo", JsonNodeFactory.instance.objectNode());
    String name = FileMarkStore.fileName(K);
    for (String sub : new String[] {"marks", "marks-copy"}) {
      Files.copy(dir.resolve("two.marks.d/" + sub + "/" + name), dir.resolve("tools.jsonl.marks.d/" + sub + "/" + name),
          java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    }
    staleRefused(file);
  }

  /** The mark directory replaced by a symlink to a directory holding lower marks. */
  @Test
  void markDirectoryIsASymlinkToLowerMarks() throws Exception {
    Path file = journalAt9();
    Path two = dir.resolve("two");
    executor(two).call(token(2), "echo", JsonNodeFactory.instance.objectNode());
    deleteTree(dir.resolve("tools.jsonl.marks.d"));
    Files.createSymbolicLink(dir.resolve("tools.jsonl.marks.d"), dir.resolve("two.marks.d"));
    staleRefused(file);
  }

  /** marks/ a symlink to marks-copy/ of a lower journal. */
  @Test
  void markSubdirectoryIsASymlink() throws Exception {
    Path file = journalAt9();
    Path two = dir.resolve("two");
    executor(two).call(token(2), "echo", JsonNodeFactory.instance.objectNode());
    Path md = dir.resolve("tools.jsonl.marks.d");
    deleteTree(md.resolve("marks"));
    deleteTree(md.resolve("marks-copy"));
    Files.createSymbolicLink(md.resolve("marks"), dir.resolve("two.marks.d/marks"));
    Files.createSymbolicLink(md.resolve("marks-copy"), dir.resolve("two.marks.d/marks-copy"));
    staleRefused(file);
  }

  /** The older marks file is a named pipe: the open must not hang (30 s lock budget aside). */
  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void olderMarksFileIsAPipe() throws Exception {
    Path file = journalAt9();
    deleteTree(dir.resolve("tools.jsonl.marks.d"));
    Process p = new ProcessBuilder("mkfifo", dir.resolve("tools.jsonl.marks").toString()).start();
    assertThat(p.waitFor()).isZero();
    staleRefused(file);
  }

  private static void deleteTree(Path p) throws Exception {
    try (Stream<Path> walk = Files.walk(p)) {
      for (Path q : walk.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(q);
      }
    }
  }
}
