package io.leasehold.adapters.file;

import io.leasehold.adapters.ResourceAccessException;
import io.leasehold.adapters.file.internal.StateFiles;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.internal.Arguments;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The file store's relative paths: which are acceptable, and how a read (which takes no lock) finds
 * and reads an existing file without leaving the root through a link. Writes and deletes do not
 * read this way; they open the path's directories one by one ({@link TargetDirectory}).
 */
final class StorePaths {
  private StorePaths() {}

  /**
   * Checks a relative path before anything is admitted: relative, {@code /}-separated, no empty,
   * {@code .} or {@code ..} segments, no names the file system would refuse, not under the store's
   * own directory.
   *
   * @return the path
   * @throws IllegalArgumentException if it is not acceptable
   */
  static String check(String path) {
    Arguments.required(path, "path");
    // The one length limit of a path (issue 46: an operator text's 500 used to apply as well).
    if (path.isEmpty() || path.length() > FencedFileStore.MAX_PATH_LENGTH) {
      throw new IllegalArgumentException(
          "path must have 1 to "
              + FencedFileStore.MAX_PATH_LENGTH
              + " characters, had "
              + path.length());
    }
    if (path.isBlank()) {
      throw new IllegalArgumentException("path must not be blank");
    }
    if (path.startsWith("/") || path.endsWith("/")) {
      throw new IllegalArgumentException("path must be relative and name a file: " + path);
    }
    if (path.indexOf('\\') >= 0 || path.chars().anyMatch(Character::isISOControl)) {
      throw new IllegalArgumentException("path must not contain backslashes or control characters");
    }
    String[] segments = path.split("/", -1);
    for (String s : segments) {
      if (s.isEmpty() || s.equals(".") || s.equals("..")) {
        throw new IllegalArgumentException(
            "path must not contain empty, '.' or '..' segments: " + path);
      }
      // Checked before anything is admitted: a name the file system refuses must not raise a mark.
      if (s.getBytes(StandardCharsets.UTF_8).length > FencedFileStore.MAX_SEGMENT_BYTES) {
        throw new IllegalArgumentException(
            "path segment longer than "
                + FencedFileStore.MAX_SEGMENT_BYTES
                + " bytes (UTF-8): "
                + s.substring(0, 16)
                + "...");
      }
    }
    // A lone surrogate would not survive encoding to UTF-8, and two paths could name one file.
    if (!StandardCharsets.UTF_8.newEncoder().canEncode(path)) {
      throw new IllegalArgumentException(
          "path is not well-formed UTF-16 (a lone surrogate): " + path);
    }
    if (segments[0].equals(FencedFileStore.META_DIR)) {
      throw new IllegalArgumentException(
          FencedFileStore.META_DIR + " is reserved for the store itself");
    }
    return path;
  }

  /**
   * The longest path, in UTF-8 bytes, the store's own calls may name under its root: Linux's
   * PATH_MAX (4096) less the terminating NUL.
   */
  static final int MAX_ABSOLUTE_BYTES = 4095;

  /**
   * {@link #check(String)}, and that the path under {@code root} stays within {@value
   * #MAX_ABSOLUTE_BYTES} bytes: a write renames relative to a directory handle and would get
   * through, but reading the file back, or its writer's token (the evidence a missing mark is
   * checked against, CONTRACT C16), names the whole path and would fail.
   *
   * @return the path
   * @throws IllegalArgumentException if it is not acceptable
   */
  static String check(Path root, String path) {
    String relative = check(path);
    int bytes =
        root.toString().getBytes(StandardCharsets.UTF_8).length
            + 1
            + relative.getBytes(StandardCharsets.UTF_8).length;
    if (bytes > MAX_ABSOLUTE_BYTES) {
      throw new IllegalArgumentException(
          "path is too long for this store: under its root "
              + root
              + " it takes "
              + bytes
              + " bytes in UTF-8, and"
              + " the file system takes at most "
              + MAX_ABSOLUTE_BYTES
              + " bytes; use a shorter path or a store"
              + " root nearer /");
    }
    return relative;
  }

  /** The target if it exists as a regular file inside the root, null if it does not exist. */
  static Path resolveExisting(Path root, String relative) throws IOException {
    Path target = root.resolve(relative);
    checkNoLinkEscape(root, relative);
    if (!Files.exists(target, LinkOption.NOFOLLOW_LINKS)) {
      return null;
    }
    if (Files.isSymbolicLink(target)) {
      throw new IllegalArgumentException("path names a symbolic link: " + relative);
    }
    if (!Files.isRegularFile(target, LinkOption.NOFOLLOW_LINKS)) {
      throw new IllegalArgumentException("path does not name a regular file: " + relative);
    }
    if (!target.getParent().toRealPath().startsWith(root)) {
      throw new IllegalArgumentException("path leaves the store root through a link: " + relative);
    }
    return target;
  }

  /** Refuses a path whose existing directories include a symbolic link. */
  private static void checkNoLinkEscape(Path root, String relative) {
    Path current = root;
    String[] segments = relative.split("/");
    for (int i = 0; i < segments.length - 1; i++) {
      current = current.resolve(segments[i]);
      if (Files.isSymbolicLink(current)) {
        throw new IllegalArgumentException("path goes through a symbolic link: " + relative);
      }
    }
  }

  /**
   * Reads a file and its writer's token without a lock: the store's atomic renames mean a reader
   * sees one complete version.
   */
  static Optional<StoredFile> read(Path root, String relative) {
    try {
      Path target = resolveExisting(root, relative);
      if (target == null) {
        return Optional.empty();
      }
      // Java cannot read an attribute through an open descriptor, so check that the path still
      // names the same file (writers never modify a file in place, they rename a new one over
      // it) before the attribute and after the content; retry if a writer got in between.
      for (int attempt = 0; ; attempt++) {
        Object before = StateFiles.identity(target);
        if (before == null) {
          return Optional.empty();
        }
        Optional<FencingToken> writer;
        byte[] content;
        try {
          writer = TokenAttributes.read(target);
          content = Files.readAllBytes(target);
        } catch (NoSuchFileException e) {
          return Optional.empty(); // deleted meanwhile
        }
        if (before.equals(StateFiles.identity(target))) {
          return Optional.of(new StoredFile(relative, content, writer));
        }
        if (attempt == 100) {
          throw new IOException(relative + " kept changing while it was read");
        }
      }
    } catch (IOException e) {
      throw new ResourceAccessException("could not read " + relative, e);
    }
  }

  /** CONTRACT C19: refuses a valid token for a path its key does not own; nothing is touched. */
  static FencingToken inScope(PathScope scope, FencingToken token, String relative) {
    if (!scope.permits(token.key(), relative)) {
      throw io.leasehold.fencing.internal.OutOfScope.refusal(
          token,
          "path " + relative,
          "path",
          scope.ownerOf(relative),
          scope,
          "write under the key's own directory, or give the store a PathScope that assigns this"
              + " path to the key");
    }
    return token;
  }

  /** An I/O failure in words: what failed, on which file, and why (often hidden in the cause). */
  static String describe(IOException e) {
    if (e instanceof java.nio.file.FileSystemException f) {
      String what = e.getClass().getSimpleName();
      return what + " on " + f.getFile() + (f.getReason() == null ? "" : ": " + f.getReason());
    }
    return e.toString();
  }
}
