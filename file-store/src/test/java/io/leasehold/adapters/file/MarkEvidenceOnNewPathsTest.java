package io.leasehold.adapters.file;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.leasehold.adapters.ResourceAccessException;
import io.leasehold.adapters.mark.FileMarkStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import org.junit.jupiter.api.Test;

/**
 * Issue 46, red team: a key's mark files deleted, or restored from an older copy, then a store
 * opened again on the root (a restarted process), and a stale fence writing a path the key had not
 * written yet was admitted: the only evidence consulted was the writer of the file an operation
 * replaces, and a new path has none (CONTRACT C16). The key's files next to the new path are
 * evidence too, the first time a store admits the key.
 */
class MarkEvidenceOnNewPathsTest extends DamagedStateTest {
  @Override
  FencedFileStore open(Path root) {
    return openForOperators(root);
  }

  private void deleteMarks() throws Exception {
    Files.delete(root.resolve(".leasehold/marks/" + FileMarkStore.fileName(KEY)));
    Files.delete(root.resolve(".leasehold/marks-copy/" + FileMarkStore.fileName(KEY)));
  }

  @Test
  void deletedMarkFilesThenARestartedStoreRefusesAStaleWriterOnANewPath() throws Exception {
    store.write(token(KEY, 20), "chat-1/f.md", "twenty".getBytes());
    store.write(token(KEY, 20), "chat-1/keep.md", "twenty".getBytes());
    deleteMarks();
    store = open(root);
    assertStaleWriteOfANewPathAwaitsTheOperator("is missing", "written by fence 20");
    assertThat(Files.exists(root.resolve("chat-1/new.md"))).isFalse();
    assertThat(store.highWaterMark(KEY)).isEmpty();
    // The repair: an operator sets the mark again; then the key's newer run goes on.
    store.resetMark(KEY, 20, "ops", "marks deleted, incident 8");
    store.write(token(KEY, 21), "chat-1/new.md", "twenty-one".getBytes());
    assertThat(content("chat-1/new.md")).isEqualTo("twenty-one");
  }

  @Test
  void theKeysOwnOlderMarkFilesRestoredThenAStaleWriterOnANewPathIsRefused() throws Exception {
    store.write(token(KEY, 5), "chat-1/f.md", "five".getBytes());
    Path saved = Files.createTempDirectory(root.getParent(), "saved-marks");
    for (String dir : new String[] {"marks", "marks-copy"}) {
      Files.copy(
          root.resolve(".leasehold").resolve(dir).resolve(FileMarkStore.fileName(KEY)),
          saved.resolve(dir));
    }
    store.write(token(KEY, 20), "chat-1/f.md", "twenty".getBytes());
    for (String dir : new String[] {"marks", "marks-copy"}) {
      Files.copy(
          saved.resolve(dir),
          root.resolve(".leasehold").resolve(dir).resolve(FileMarkStore.fileName(KEY)),
          StandardCopyOption.REPLACE_EXISTING);
    }
    store = open(root);
    assertThatThrownBy(() -> store.write(token(KEY, 6), "chat-1/new.md", "six".getBytes()))
        .isInstanceOf(ResourceAccessException.class)
        .hasMessageContaining("is 5, but")
        .hasMessageContaining("written by fence 20");
    assertThat(Files.exists(root.resolve("chat-1/new.md"))).isFalse();
    assertThat(content("chat-1/f.md")).isEqualTo("twenty");
  }

  @Test
  void anHonestNewerRunAfterARestartWritesNewPathsAsBefore() {
    store.write(token(KEY, 20), "chat-1/f.md", "twenty".getBytes());
    store = open(root);
    store.write(token(KEY, 21), "chat-1/new.md", "twenty-one".getBytes());
    store.write(token(KEY, 21), "chat-2-of-the-same-key/other.md", "in a new directory".getBytes());
    assertThat(store.highWaterMark(KEY)).hasValue(21);
  }

  /**
   * Red team 47, B4: both copies rewritten lower with a well-formed mark, then a restarted store. A
   * stale fence is refused in the directory the key wrote in; in another directory of the key it is
   * admitted, as docs/resource-owners.md and C16 say: the evidence is the target's directory, not
   * the key's whole scope.
   */
  @Test
  void aConsistentlyLoweredMarkIsCaughtInTheKeysDirectoryOnly() throws Exception {
    store.write(token(KEY, 7), "chat-1/a/f.md", "seven".getBytes());
    String lowered = "3 " + token(KEY, 3).toText() + "\n";
    for (String dir : new String[] {"marks", "marks-copy"}) {
      Files.writeString(
          root.resolve(".leasehold").resolve(dir).resolve(FileMarkStore.fileName(KEY)), lowered);
    }
    store = open(root);
    assertThatThrownBy(() -> store.write(token(KEY, 5), "chat-1/a/g.md", "five".getBytes()))
        .isInstanceOf(ResourceAccessException.class)
        .hasMessageContaining("is 3, but")
        .hasMessageContaining("written by fence 7");
    store = open(root);
    store.write(token(KEY, 5), "chat-1/b/g.md", "five".getBytes());
    assertThat(store.highWaterMark(KEY)).hasValue(5);
    assertThat(content("chat-1/a/f.md")).isEqualTo("seven");
  }
}
