package io.leasehold.adapters.file;

import java.io.Closeable;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Optional;
import java.util.Set;

/**
 * The directory a relative path's file lives in, opened segment by segment from the root without
 * following links (CONTRACT C16): every step opens the next directory relative to the one before,
 * with {@code O_NOFOLLOW}, so a symbolic link swapped into the path while the store works makes the
 * operation fail instead of taking it outside the root. The rename into place and the delete are
 * made relative to this handle too.
 */
final class TargetDirectory implements Closeable {
  private final SecureDirectoryStream<Path> dir;
  private final Path path;
  private final Path name;

  private TargetDirectory(SecureDirectoryStream<Path> dir, Path path, Path name) {
    this.dir = dir;
    this.path = path;
    this.name = name;
  }

  /**
   * Opens the directory of {@code relative} (already checked: no empty, {@code .} or {@code ..}
   * segments).
   *
   * @param create whether to create missing directories
   * @return the directory, or empty if a directory is missing and {@code create} is false
   * @throws IllegalArgumentException if the path goes through a link or a non-directory
   */
  static Optional<TargetDirectory> open(Path root, String relative, boolean create)
      throws IOException {
    String[] segments = relative.split("/");
    SecureDirectoryStream<Path> current = secure(root);
    Path currentPath = root;
    try {
      for (int i = 0; i < segments.length - 1; i++) {
        Path segment = Path.of(segments[i]);
        BasicFileAttributes a = attributes(current, segment);
        if (a == null) {
          if (!create) {
            current.close();
            return Optional.empty();
          }
          try {
            // No mkdirat in Java: create by path, then open it relative to our handle below,
            // which fails if the path led anywhere but where our handle is.
            Files.createDirectory(currentPath.resolve(segment));
          } catch (FileAlreadyExistsException e) {
            // made meanwhile; checked below
          }
          a = attributes(current, segment);
          if (a == null) {
            throw new IOException(
                "directory " + currentPath.resolve(segment) + " vanished while it was created");
          }
        }
        if (a.isSymbolicLink()) {
          throw new IllegalArgumentException("path goes through a symbolic link: " + relative);
        }
        if (!a.isDirectory()) {
          throw new IllegalArgumentException(
              "path goes through something that is not a directory: " + relative);
        }
        SecureDirectoryStream<Path> next;
        try {
          next = current.newDirectoryStream(segment, LinkOption.NOFOLLOW_LINKS);
        } catch (FileSystemException e) {
          throw new IllegalArgumentException(
              "path changed into a symbolic link while it was opened: " + relative, e);
        }
        current.close();
        current = next;
        currentPath = currentPath.resolve(segment);
      }
      return Optional.of(
          new TargetDirectory(current, currentPath, Path.of(segments[segments.length - 1])));
    } catch (IOException | RuntimeException e) {
      current.close();
      throw e;
    }
  }

  static SecureDirectoryStream<Path> secure(Path dir) throws IOException {
    DirectoryStream<Path> s = Files.newDirectoryStream(dir);
    if (s instanceof SecureDirectoryStream<Path> sds) {
      return sds;
    }
    s.close();
    throw new IOException(
        "this platform has no SecureDirectoryStream; the file store needs one to refuse symbolic"
            + " links swapped in while it writes (Linux and other Unix systems have it)");
  }

  private static BasicFileAttributes attributes(SecureDirectoryStream<Path> dir, Path entry)
      throws IOException {
    try {
      return dir.getFileAttributeView(
              entry, BasicFileAttributeView.class, LinkOption.NOFOLLOW_LINKS)
          .readAttributes();
    } catch (NoSuchFileException e) {
      return null;
    }
  }

  /** The file's attributes, not following a link; null if there is no such entry. */
  BasicFileAttributes target() throws IOException {
    return attributes(dir, name);
  }

  /** The file's path (for messages and for reading its attributes). */
  Path file() {
    return path.resolve(name);
  }

  /** Renames {@code temp} (a name in {@code from}) over the file, atomically. */
  void moveIn(SecureDirectoryStream<Path> from, Path temp) throws IOException {
    from.move(temp, dir, name);
  }

  /** Deletes the file (the caller checked it is a regular file). */
  void delete() throws IOException {
    dir.deleteFile(name);
  }

  /** Forces the directory's entries to disk, through the handle. */
  void force() throws IOException {
    try (SeekableByteChannel ch =
        dir.newByteChannel(Path.of("."), Set.of(StandardOpenOption.READ))) {
      ((FileChannel) ch).force(true);
    }
  }

  @Override
  public void close() throws IOException {
    dir.close();
  }
}
