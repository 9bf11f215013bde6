package io.leasehold.adapters.file;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.leasehold.adapters.ResourceAccessException;
import io.leasehold.adapters.mark.FileMarkStore;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.StaleFenceException;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.UserDefinedFileAttributeView;
import java.util.Comparator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * CONTRACT C16 for the store's own state going missing or turning into something that is not a mark
 * file. What broke: with both mark directories gone (a root restored without its {@code .leasehold}
 * directory, say), the store started fresh, and a stale run's write to a path it had not written
 * before was admitted; only the operation's own target was checked for evidence. And a huge mark
 * file raised OutOfMemoryError. (A mark that is a named pipe: {@code SpecialStateFilesTest}.)
 */
class LostMarksTest extends DamagedStateTest {
  private static final LeaseKey OTHER = LeaseKey.of("acct", "chat-2");

  @Override
  FencedFileStore open(Path root) {
    return openForOperators(root);
  }

  private static void deleteTree(Path p) throws IOException {
    try (Stream<Path> walk = Files.walk(p)) {
      for (Path q : walk.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(q);
      }
    }
  }

  @Test
  void aRootRestoredWithoutItsOwnDirectoryRefusesAStaleWriterOnANewPath() throws Exception {
    store.write(token(KEY, 10), "chat-1/a.md", "ten".getBytes());
    store.write(token(KEY, 12), "chat-1/b.md", "twelve".getBytes());
    deleteTree(root.resolve(FencedFileStore.META_DIR));

    store = open(root);
    assertStaleWriteOfANewPathAwaitsTheOperator("lost", "fence 12");
    assertThat(store.read("chat-1/new.md")).isEmpty();
    // Even the newest run waits for the operator: the store cannot tell what was deleted.
    assertThatThrownBy(() -> store.write(token(KEY, 13), "chat-1/new.md", "x".getBytes()))
        .isInstanceOf(ResourceAccessException.class);
    // A key with no files under the root was never admitted here: it works as before.
    store.write(token(OTHER, 3), "chat-2/a.md", "three".getBytes());

    store.resetMark(KEY, 12, "ops", "marks lost in a restore; lease table fence 12");
    assertStaleWriteOfANewPath().isInstanceOf(StaleFenceException.class);
    store.write(token(KEY, 13), "chat-1/new.md", "thirteen".getBytes());
    assertThat(content("chat-1/new.md")).isEqualTo("thirteen");
  }

  @Test
  void bothMarkDirectoriesGoneFailsClosedForEveryKeyWithFilesAndSurvivesReopening()
      throws Exception {
    store.write(token(KEY, 10), "chat-1/a.md", "ten".getBytes());
    store.write(token(OTHER, 7), "chat-2/a.md", "seven".getBytes());
    deleteTree(root.resolve(".leasehold/marks"));
    deleteTree(root.resolve(".leasehold/marks-copy"));

    store = open(root);
    store = open(root); // the second open sees mark directories, and must still refuse
    for (LeaseKey key : new LeaseKey[] {KEY, OTHER}) {
      assertThatThrownBy(
              () -> store.write(token(key, 1), "elsewhere/" + key.sessionId(), "x".getBytes()))
          .isInstanceOf(ResourceAccessException.class)
          .hasMessageContaining("resetMark");
      assertThatThrownBy(() -> store.highWaterMark(key))
          .isInstanceOf(ResourceAccessException.class);
    }
    assertThat(store.read("elsewhere/chat-1")).isEmpty();
    assertThat(content("chat-1/a.md")).isEqualTo("ten");
  }

  @Test
  void aRecoveryThatCrashedBeforeItsRenamesIsMadeAgainAtTheNextOpen() throws Exception {
    store.write(token(KEY, 10), "chat-1/a.md", "ten".getBytes());
    deleteTree(root.resolve(".leasehold/marks"));
    deleteTree(root.resolve(".leasehold/marks-copy"));
    // What a crash while the mark directories were being filled leaves: a half-filled directory.
    Path leftover = Files.createDirectory(root.resolve(".leasehold/marks.new"));
    Files.writeString(leftover.resolve(FileMarkStore.fileName(OTHER)), "half-written");

    store = open(root);
    assertThat(leftover).doesNotExist();
    assertStaleWriteOfANewPath()
        .isInstanceOf(ResourceAccessException.class)
        .hasMessageContaining("fence 10");
    store.write(token(OTHER, 1), "chat-2/a.md", "one".getBytes());

    // A name the store never writes there is not deleted: the open refuses and says what to move.
    deleteTree(root.resolve(".leasehold/marks"));
    deleteTree(root.resolve(".leasehold/marks-copy"));
    Files.createDirectory(leftover);
    Files.writeString(leftover.resolve("notes.txt"), "an operator's file");
    assertThatThrownBy(() -> open(root))
        .isInstanceOf(ResourceAccessException.class)
        .hasMessageContaining("notes.txt");
    assertThat(leftover.resolve("notes.txt")).exists();
  }

  @Test
  void aFileWhoseTokenAttributeCannotBeReadStopsTheRecoveryNamingTheFile() throws Exception {
    store.write(token(KEY, 10), "chat-1/a.md", "ten".getBytes());
    Path file = root.resolve("chat-1/a.md");
    Files.getFileAttributeView(file, UserDefinedFileAttributeView.class)
        .write(FencedFileStore.TOKEN_ATTRIBUTE, StandardCharsets.US_ASCII.encode("not a token"));
    deleteTree(root.resolve(FencedFileStore.META_DIR));

    assertThatThrownBy(() -> open(root))
        .isInstanceOf(ResourceAccessException.class)
        .hasMessageContaining("chat-1/a.md")
        .hasMessageContaining(FencedFileStore.TOKEN_ATTRIBUTE);
    // Nothing was recorded as a mark: a later open still refuses until the file is repaired.
    assertThatThrownBy(() -> open(root)).isInstanceOf(ResourceAccessException.class);
    Files.getFileAttributeView(file, UserDefinedFileAttributeView.class)
        .delete(FencedFileStore.TOKEN_ATTRIBUTE);
    store = open(root);
    store.write(token(KEY, 11), "chat-1/a.md", "eleven".getBytes());
  }

  @Test
  void anOversizedMarkFileIsADamagedMarkNotAnOutOfMemoryError() throws Exception {
    store.write(token(KEY, 10), "chat-1/a.md", "ten".getBytes());
    Path mark = root.resolve(".leasehold/marks/" + FileMarkStore.fileName(KEY));
    try (RandomAccessFile f = new RandomAccessFile(mark.toFile(), "rw")) {
      f.setLength(3L << 30); // sparse: 3 GiB that take no disk, and more than an array can hold
    }
    assertThatThrownBy(() -> store.write(token(KEY, 11), "chat-1/a.md", "eleven".getBytes()))
        .isInstanceOf(ResourceAccessException.class)
        .hasMessageContaining("damaged high-water mark")
        .hasMessageContaining("bytes");
    store.resetMark(KEY, 10, "ops", "a mark file overwritten by mistake");
    store.write(token(KEY, 11), "chat-1/a.md", "eleven".getBytes());
  }
}
