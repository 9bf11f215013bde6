package io.leasehold.adapters.file;

import static io.leasehold.adapters.file.FileHarness.anyPathStore;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.StaleFenceException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 27, finding 7 (CONTRACT C21): 2,000 deletes of missing files by 2,000 keys left 2,000 mark
 * files. A delete that changes nothing now creates no mark, yet still raises a mark a key has and
 * is refused when stale.
 */
class DeletesOfMissingFilesTest {
  @TempDir Path root;

  private FencedFileStore open() {
    return anyPathStore(root).open();
  }

  private long markFiles() throws IOException {
    long n = 0;
    for (String dir : new String[] {"marks", "marks-copy"}) {
      Path d = root.resolve(FencedFileStore.META_DIR).resolve(dir);
      if (Files.isDirectory(d)) {
        try (Stream<Path> s = Files.list(d)) {
          n += s.count();
        }
      }
    }
    return n;
  }

  @Test
  void deletesOfMissingFilesByManyKeysLeaveNoMarkFiles() throws IOException {
    FencedFileStore store = open();
    for (int i = 0; i < 2000; i++) {
      FencingToken t = new FencingToken(LeaseKey.of("mallory", "s-" + i), 1, UUID.randomUUID());
      assertThat(store.delete(t, "f-" + i + ".txt").existed()).isFalse();
    }
    assertThat(markFiles()).isZero();
  }

  @Test
  void aDeleteOfAMissingFileStillRaisesAnExistingMarkAndIsRefusedWhenStale() throws IOException {
    FencedFileStore store = open();
    LeaseKey key = LeaseKey.of("acct", "chat");
    store.write(
        new FencingToken(key, 5, UUID.randomUUID()),
        "a.txt",
        "five".getBytes(StandardCharsets.UTF_8));
    store.delete(new FencingToken(key, 7, UUID.randomUUID()), "missing.txt");
    assertThat(store.highWaterMark(key)).hasValue(7);
    FencingToken stale = new FencingToken(key, 6, UUID.randomUUID());
    assertThatThrownBy(() -> store.delete(stale, "missing.txt"))
        .isInstanceOf(StaleFenceException.class);
    assertThatThrownBy(() -> store.write(stale, "a.txt", new byte[1]))
        .isInstanceOf(StaleFenceException.class);
  }
}
