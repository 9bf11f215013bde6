package io.leasehold.adapters.file;

import static io.leasehold.adapters.file.FileHarness.anyPathStore;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * Issue 46, item 11: paths of 501 to 1,024 characters were refused with "at most 500 characters"
 * (the limit of an operator's reset reason) while {@link FencedFileStore#MAX_PATH_LENGTH} said
 * 1,024. One limit, one message.
 */
class PathLengthLimitTest extends DamagedStateTest {
  @Override
  FencedFileStore open(Path root) {
    return anyPathStore(root).auditLog(true).open();
  }

  /** A path of exactly {@code length} characters: names of {@code segment} characters. */
  private static String pathOf(int length, char c, int segment) {
    StringBuilder p = new StringBuilder();
    while (p.length() < length) {
      if (p.length() > 0) {
        p.append('/');
      }
      p.append(String.valueOf(c).repeat(Math.min(segment, length - p.length())));
    }
    return p.toString();
  }

  @Test
  void pathsUpToMaxPathLengthCharactersAreWrittenReadAndDeleted() {
    // ASCII, and three UTF-8 bytes per character (85 of them make a 255-byte name).
    for (String path :
        new String[] {
          pathOf(501, 'a', 200),
          pathOf(FencedFileStore.MAX_PATH_LENGTH, 'b', 254),
          pathOf(FencedFileStore.MAX_PATH_LENGTH, '\u20ac', 85)
        }) {
      assertThat(path).hasSize(path.startsWith("a") ? 501 : FencedFileStore.MAX_PATH_LENGTH);
      store.write(token(KEY, 7), path, "x".getBytes());
      store.write(token(KEY, 7), path, "y".getBytes()); // a replace reads the file's writer
      assertThat(content(path)).isEqualTo("y");
      assertThat(store.delete(token(KEY, 7), path).existed()).isTrue();
    }
    assertThat(store.auditLog()).hasSize(9);
    assertThat(store.damagedAuditLines()).isZero();
  }

  @Test
  void aPathOverMaxPathLengthIsRefusedWithTheLimitThatApplies() {
    String path = pathOf(FencedFileStore.MAX_PATH_LENGTH + 1, 'c', 200);
    assertThatThrownBy(() -> store.write(token(KEY, 7), path, "x".getBytes()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "path must have 1 to "
                + FencedFileStore.MAX_PATH_LENGTH
                + " characters, had "
                + (FencedFileStore.MAX_PATH_LENGTH + 1));
    assertThatThrownBy(() -> store.read(path))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("1 to 1024 characters");
    assertThat(store.highWaterMark(KEY)).isEmpty();
  }

  @Test
  void blankAndMalformedPathsAreStillRefused() {
    assertThatThrownBy(() -> store.write(token(KEY, 7), " ", "x".getBytes()))
        .hasMessageContaining("blank");
    assertThatThrownBy(() -> store.write(token(KEY, 7), "a/\ud800b", "x".getBytes()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("UTF-16");
    assertThat(store.highWaterMark(KEY)).isEmpty();
  }

  /**
   * With paths up to 1,024 characters, a long root can make the whole path pass Linux's PATH_MAX:
   * the write went through (it renames relative to a directory handle) while reading the file back
   * failed, and so did reading its writer's token, the evidence behind C16. Such a path is refused
   * before anything is admitted.
   */
  @Test
  void aPathTooLongUnderItsRootIsRefusedBeforeTheMarkRises() {
    Path deep = dir;
    for (int i = 0; i < 6; i++) {
      deep = deep.resolve("d".repeat(200)); // a root of over 1,200 bytes
    }
    FencedFileStore longRoot = open(deep);
    String path = pathOf(FencedFileStore.MAX_PATH_LENGTH, '\u20ac', 85); // 3,072 bytes in UTF-8
    assertThatThrownBy(() -> longRoot.write(token(KEY, 7), path, "x".getBytes()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("4095 bytes");
    assertThatThrownBy(() -> longRoot.delete(token(KEY, 7), path))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> longRoot.read(path)).isInstanceOf(IllegalArgumentException.class);
    assertThat(longRoot.highWaterMark(KEY)).isEmpty();
    String fits = pathOf(400, '\u20ac', 85);
    longRoot.write(token(KEY, 7), fits, "x".getBytes());
    assertThat(longRoot.read(fits).orElseThrow().writtenBy())
        .hasValueSatisfying(t -> assertThat(t.fence()).isEqualTo(7));
  }
}
