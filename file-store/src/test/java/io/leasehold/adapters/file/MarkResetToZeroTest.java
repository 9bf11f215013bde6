package io.leasehold.adapters.file;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.leasehold.adapters.ResourceAccessException;
import io.leasehold.adapters.mark.FileMarkStore;
import io.leasehold.fencing.StaleFenceException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * Issue 46, item 11: after {@code resetMark(key, 0)} a newer honest run's rewrite of a file the key
 * had written was refused "mark is missing" until some other write recreated the mark, because the
 * reset deleted the mark files and a missing mark next to the key's data is read as tampering
 * (CONTRACT C16). A reset to 0 now leaves a mark of 0 on disk: the next run of any fence is
 * admitted, and a mark deleted by anyone else still fails closed.
 */
class MarkResetToZeroTest extends DamagedStateTest {
  @Override
  FencedFileStore open(Path root) {
    return openForOperators(root);
  }

  @Test
  void aResetToZeroLetsTheNextRunRewriteTheKeysFiles() {
    store.write(token(KEY, 10), "chat-1/a.md", "ten".getBytes());
    store.resetMark(KEY, 0, "ops", "forged token, true fence unknown");
    assertThat(store.highWaterMark(KEY)).isEmpty();

    store.write(token(KEY, 11), "chat-1/a.md", "eleven".getBytes());
    assertThat(content("chat-1/a.md")).isEqualTo("eleven");
    assertThat(store.highWaterMark(KEY)).hasValue(11);
    assertThatThrownBy(() -> store.write(token(KEY, 10), "chat-1/a.md", "ten again".getBytes()))
        .isInstanceOf(StaleFenceException.class);
  }

  @Test
  void aResetToZeroAdmitsAnyFenceAfterARestartToo() {
    store.write(token(KEY, 40), "chat-1/a.md", "forty".getBytes());
    store.resetMark(KEY, 0, "ops", "a forged fence 40, the lease table's fence is 3");
    store = open(root);
    assertThat(store.highWaterMark(KEY)).isEmpty();
    // 0 means no floor: fence 3, below the file's writer, is the key's true next run.
    store.write(token(KEY, 3), "chat-1/a.md", "three".getBytes());
    store.delete(token(KEY, 3), "chat-1/a.md");
    assertThat(store.highWaterMark(KEY)).hasValue(3);
  }

  @Test
  void aMarkOfZeroDeletedBySomeoneElseStillFailsClosed() throws Exception {
    store.write(token(KEY, 10), "chat-1/a.md", "ten".getBytes());
    store.resetMark(KEY, 0, "ops", "forged token, true fence unknown");
    Files.delete(root.resolve(".leasehold/marks/" + FileMarkStore.fileName(KEY)));
    Files.delete(root.resolve(".leasehold/marks-copy/" + FileMarkStore.fileName(KEY)));
    store = open(root);
    assertThatThrownBy(() -> store.write(token(KEY, 11), "chat-1/a.md", "eleven".getBytes()))
        .isInstanceOf(ResourceAccessException.class)
        .hasMessageContaining("missing")
        .hasMessageContaining("ResetMarkCommand");
    assertThat(content("chat-1/a.md")).isEqualTo("ten");
  }

  @Test
  void aMarkOfZeroCopiedOverAnotherKeysMarkIsDamageNotZero() throws Exception {
    var other = io.leasehold.fencing.LeaseKey.of("acct", "chat-2");
    store.write(token(KEY, 10), "chat-1/a.md", "ten".getBytes());
    store.write(token(other, 20), "chat-2/a.md", "twenty".getBytes());
    store.resetMark(KEY, 0, "ops", "forged token, true fence unknown");
    for (String dir : new String[] {"marks", "marks-copy"}) {
      Path meta = root.resolve(".leasehold").resolve(dir);
      Files.copy(
          meta.resolve(FileMarkStore.fileName(KEY)),
          meta.resolve(FileMarkStore.fileName(other)),
          java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    }
    assertThatThrownBy(() -> store.write(token(other, 5), "chat-2/a.md", "five".getBytes()))
        .isInstanceOf(ResourceAccessException.class)
        .hasMessageContaining("damaged high-water mark");
    assertThat(content("chat-2/a.md")).isEqualTo("twenty");
  }
}
