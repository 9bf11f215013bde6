package io.leasehold.adapters.file;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * Small file-system steps the file store repeats: forcing a directory, owning a directory,
 * appending a line to a log.
 */
final class DurableFiles {
  private DurableFiles() {}

  /**
   * Appends a line, forced to disk, to one of the store's logs, created {@code rw-------}. The
   * caller has checked, before admitting anything, that the log is a regular file or absent
   * ({@link io.leasehold.adapters.StateFiles}).
   */
  static void appendLine(Path log, String line) throws IOException {
    try (FileChannel ch =
        FileChannel.open(
            log,
            java.util.Set.of(
                StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.APPEND, LinkOption.NOFOLLOW_LINKS),
            // Only the store's user reads the logs: they hold full tokens.
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")))) {
      ByteBuffer buf = ByteBuffer.wrap(line.getBytes(StandardCharsets.US_ASCII));
      while (buf.hasRemaining()) {
        ch.write(buf);
      }
      ch.force(false);
    }
  }

  /** A step on a new file before it is forced to disk (setting its extended attributes). */
  @FunctionalInterface
  interface BeforeForce {
    void apply(Path file) throws IOException;
  }

  /**
   * Writes a file that must not exist yet, never through a link, runs {@code beforeForce} on it,
   * and forces content and metadata to disk before it returns.
   */
  static void writeNew(Path file, byte[] content, BeforeForce beforeForce) throws IOException {
    try (FileChannel ch =
        FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS)) {
      ByteBuffer buf = ByteBuffer.wrap(content);
      while (buf.hasRemaining()) {
        ch.write(buf);
      }
      beforeForce.apply(file);
      ch.force(true);
    }
  }

  static void forceDirectory(Path dir) throws IOException {
    try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
      ch.force(true);
    }
  }

  /**
   * Makes sure {@code dir} is a real directory of the store's own (created 0700 if missing),
   * never a symbolic link planted there: the store deletes and renames inside these directories,
   * and following a planted link would let it touch files elsewhere.
   */
  static void ownDirectory(Path dir) throws IOException {
    if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
      try {
        Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
      } catch (FileAlreadyExistsException e) {
        // another process made it first; checked below
      }
    }
    if (Files.isSymbolicLink(dir)) {
      throw new IOException(
          dir + " is a symbolic link; the store's own directories must be real directories inside"
              + " its root. Remove the link (after checking what it points at and why it is there)");
    }
    if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
      throw new IOException(dir + " is not a directory; move it aside so the store can create its own");
    }
  }
}
