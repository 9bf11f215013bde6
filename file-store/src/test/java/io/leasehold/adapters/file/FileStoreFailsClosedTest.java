package io.leasehold.adapters.file;

import static io.leasehold.adapters.file.FileHarness.anyPathStore;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.leasehold.adapters.ResourceAccessException;
import io.leasehold.adapters.mark.FileMarkStore;
import io.leasehold.fencing.AdminPolicy;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.StaleFenceException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Issue 13 (CONTRACT C16), each finding from trying the file store as a hostile or unlucky
 * environment would: damage never lowers a mark, and nothing under the root makes the store touch
 * files outside it.
 */
class FileStoreFailsClosedTest extends DamagedStateTest {
  @Override
  FencedFileStore open(Path root) {
    return anyPathStore(root)
        .auditLog(true)
        .adminPolicy(AdminPolicy.operators(Set.of("ops")))
        .open();
  }

  private static FencingToken token(long fence) {
    return token(KEY, fence);
  }

  private Path primaryMark() {
    return root.resolve(".leasehold/marks/" + FileMarkStore.fileName(KEY));
  }

  private Path copyMark() {
    return root.resolve(".leasehold/marks-copy/" + FileMarkStore.fileName(KEY));
  }

  @Test
  void deletingTheMarkFileDoesNotResetTheMark() throws Exception {
    store.write(token(10), "chat-1/a.md", "ten".getBytes());
    Files.delete(primaryMark());
    assertThatThrownBy(() -> store.write(token(5), "chat-1/b.md", "five".getBytes()))
        .isInstanceOf(StaleFenceException.class);
    assertThat(store.highWaterMark(KEY)).hasValue(10);
  }

  @Test
  void writingALowerValueIntoTheMarkFileDoesNotLowerTheMark() throws Exception {
    store.write(token(10), "chat-1/a.md", "ten".getBytes());
    Files.writeString(primaryMark(), "3 " + token(3).toText() + "\n");
    assertThatThrownBy(() -> store.write(token(5), "chat-1/a.md", "five".getBytes()))
        .isInstanceOf(StaleFenceException.class);
    assertThat(content("chat-1/a.md")).isEqualTo("ten");
  }

  @Test
  void dataWhoseMarksAreAllGoneFailsClosedWithTheRepair() throws Exception {
    store.write(token(10), "chat-1/a.md", "ten".getBytes());
    Files.delete(primaryMark());
    Files.delete(copyMark());
    assertThatThrownBy(() -> store.write(token(5), "chat-1/a.md", "five".getBytes()))
        .isInstanceOf(ResourceAccessException.class)
        .hasMessageContaining("missing")
        .hasMessageContaining("fence 10")
        .hasMessageContaining("ResetMarkCommand");
    assertThatThrownBy(() -> store.delete(token(5), "chat-1/a.md"))
        .isInstanceOf(ResourceAccessException.class);
    assertThat(content("chat-1/a.md")).isEqualTo("ten");
    store.resetMark(KEY, 10, "ops", "marks lost in a restore");
    assertThatThrownBy(() -> store.write(token(5), "chat-1/a.md", "five".getBytes()))
        .isInstanceOf(StaleFenceException.class);
    store.write(token(11), "chat-1/a.md", "eleven".getBytes());
  }

  @Test
  void garbageOrANegativeValueInAMarkIsAClearRefusalThatRaisesNothing() throws Exception {
    store.write(token(10), "chat-1/a.md", "ten".getBytes());
    for (String damage :
        List.of("garbage", "-7 " + token(10).toText(), "99999999999999999999 x", "")) {
      Files.writeString(primaryMark(), damage);
      assertThatThrownBy(() -> store.write(token(12), "chat-1/a.md", "twelve".getBytes()))
          .as("mark file holding '%s'", damage)
          .isInstanceOf(ResourceAccessException.class)
          .hasMessageContaining("damaged high-water mark")
          .hasMessageContaining("resetMark");
      assertThat(Files.readString(copyMark())).startsWith("10 ");
      assertThat(content("chat-1/a.md")).isEqualTo("ten");
    }
    store.resetMark(KEY, 10, "ops", "repaired a damaged mark");
    store.write(token(12), "chat-1/a.md", "twelve".getBytes());
    assertThat(store.highWaterMark(KEY)).hasValue(12);
  }

  @Test
  void anOverlongNameIsRefusedBeforeTheMarkRises() {
    String name = "x".repeat(256);
    assertThatThrownBy(() -> store.write(token(7), "chat-1/" + name, "x".getBytes()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("255 bytes");
    assertThatThrownBy(() -> store.write(token(7), name + "/f.md", "x".getBytes()))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(store.highWaterMark(KEY)).isEmpty();
  }

  @Test
  void aPlantedTmpLinkIsRefusedAndItsTargetIsUntouched() throws Exception {
    Path victim = Files.createDirectories(dir.resolve("victim"));
    Files.writeString(victim.resolve("precious.txt"), "keep me");
    Path fresh = dir.resolve("fresh");
    Files.createDirectories(fresh.resolve(".leasehold"));
    Files.createSymbolicLink(fresh.resolve(".leasehold/tmp"), victim);
    assertThatThrownBy(() -> open(fresh))
        .isInstanceOf(ResourceAccessException.class)
        .hasMessageContaining("symbolic link");
    assertThat(victim.resolve("precious.txt")).hasContent("keep me");
  }

  @Test
  void aPlantedMarksLinkIsRefused() throws Exception {
    Path elsewhere = Files.createDirectories(dir.resolve("elsewhere"));
    Path fresh = dir.resolve("fresh");
    Files.createDirectories(fresh.resolve(".leasehold"));
    Files.createSymbolicLink(fresh.resolve(".leasehold/marks"), elsewhere);
    assertThatThrownBy(() -> open(fresh)).hasMessageContaining("symbolic link");
    try (Stream<Path> s = Files.list(elsewhere)) {
      assertThat(s).isEmpty();
    }
  }

  @Test
  void onlyTheStoresOwnTemporaryNamesAreCleanedUp() throws Exception {
    Path stray = root.resolve(".leasehold/tmp/notes-of-an-operator.txt");
    Files.writeString(stray, "mine");
    open(root);
    assertThat(stray).hasContent("mine");
  }

  /**
   * A directory of the path swapped for a link to outside the root, over and over, while a writer
   * writes through it: no write ever lands outside the root.
   */
  @Test
  void aLinkSwappedInDuringWritesNeverTakesAWriteOutsideTheRoot() throws Exception {
    Path outside = Files.createDirectories(dir.resolve("outside"));
    Path d = root.resolve("chat-1");
    Path real = root.resolve("chat-1-real");
    store.write(token(1), "chat-1/f.md", "first".getBytes());
    AtomicBoolean stop = new AtomicBoolean();
    Thread swapper =
        new Thread(
            () -> {
              while (!stop.get()) {
                try {
                  // Half the time a link, half the time the real directory, each for a moment as
                  // long as a write's own steps, so checks and renames fall on both sides.
                  Files.move(d, real);
                  Files.createSymbolicLink(d, outside);
                  java.util.concurrent.locks.LockSupport.parkNanos(300_000);
                  Files.delete(d);
                  Files.move(real, d);
                  java.util.concurrent.locks.LockSupport.parkNanos(300_000);
                } catch (Exception e) {
                  // the writer may have recreated chat-1 meanwhile; keep swapping
                  try {
                    if (Files.isSymbolicLink(d)) {
                      Files.delete(d);
                    }
                    if (!Files.exists(d, LinkOption.NOFOLLOW_LINKS) && Files.exists(real)) {
                      Files.move(real, d);
                    }
                  } catch (Exception ignored) {
                    // next round
                  }
                }
              }
            });
    swapper.start();
    int refused = 0;
    // Bounded: at most 6 s, and it stops at the first file that lands outside.
    long end = System.nanoTime() + 6_000_000_000L;
    for (int i = 0; System.nanoTime() < end && isEmpty(outside); i++) {
      try {
        store.write(token(1), "chat-1/f.md", ("write " + i).getBytes());
      } catch (IllegalArgumentException | ResourceAccessException e) {
        refused++;
      }
    }
    stop.set(true);
    swapper.join();
    try (Stream<Path> s = Files.list(outside)) {
      assertThat(s).as("files written outside the root (%d writes refused)", refused).isEmpty();
    }
  }

  private static boolean isEmpty(Path dir) throws java.io.IOException {
    try (Stream<Path> s = Files.list(dir)) {
      return s.findAny().isEmpty();
    }
  }

  @Test
  void oneDamagedAuditLineDoesNotHideTheRest() throws Exception {
    store.write(token(1), "chat-1/a.md", "a".getBytes());
    Files.writeString(
        root.resolve(".leasehold/audit.log"),
        "WRITE garbage\n\n",
        java.nio.file.StandardOpenOption.APPEND);
    store.write(token(2), "chat-1/b.md", "b".getBytes());
    assertThat(store.auditLog())
        .extracting(FileOperation::path)
        .containsExactly("chat-1/a.md", "chat-1/b.md");
    assertThat(store.damagedAuditLines()).isEqualTo(2);
  }

  @Test
  void theStoresOwnFilesAreReadableByItsUserOnly() throws Exception {
    store.write(token(1), "chat-1/a.md", "a".getBytes());
    store.resetMark(KEY, 1, "ops", "permissions check");
    for (String f : List.of(".leasehold/audit.log", ".leasehold/admin.log", ".leasehold/lock")) {
      assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(root.resolve(f))))
          .as(f)
          .isEqualTo("rw-------");
    }
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(primaryMark())))
        .isEqualTo("rw-------");
    assertThat(
            PosixFilePermissions.toString(
                Files.getPosixFilePermissions(root.resolve(".leasehold"))))
        .isEqualTo("rwx------");
  }
}
