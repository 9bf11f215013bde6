package io.leasehold.adapters.file.internal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;

/**
 * Checks the adapters that keep state in files (the file store, the tool journal) make on their own
 * files: before opening one, that it is a regular file or does not exist yet; while reading one,
 * whether its name still points at the same file ({@link #identity}). Support for those adapters,
 * like {@link CrossProcessLock}; not an API of its own.
 *
 * <p>Why the first (CONTRACT C16): opening a named pipe blocks until someone opens its other end,
 * and the adapters open their files while holding a lock that every thread and process of the
 * resource waits for, so a pipe planted where a state file belongs would hang the whole resource
 * instead of refusing. The check reads the file's type without following a link, before the open.
 */
public final class StateFiles {
  private StateFiles() {}

  /**
   * Refuses anything at {@code file} that is not a regular file.
   *
   * @param file a state file of the adapter
   * @throws IOException if it exists as a directory, a link, a pipe, a socket or a device (the
   *     message names the repair)
   */
  public static void requireRegularFileOrAbsent(Path file) throws IOException {
    BasicFileAttributes attributes;
    try {
      attributes = Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
    } catch (NoSuchFileException e) {
      return;
    }
    if (attributes.isRegularFile()) {
      return;
    }
    String what =
        attributes.isSymbolicLink()
            ? "a symbolic link"
            : attributes.isDirectory() ? "a directory" : "a named pipe, socket or device";
    throw new IOException(
        file
            + " is "
            + what
            + ", not a regular file, so it is refused rather than opened (a pipe"
            + " would block every operation, which all wait for this resource's lock). Move it aside;"
            + " if it took the place of the resource's own file, restore that file from a copy");
  }

  /**
   * The identity of the file at {@code file} (device and inode where the platform has them), read
   * without following a link: how a reader that keeps a file open tells that the name now points at
   * another file (replaced by a rename, or deleted).
   *
   * @param file a file of the adapter
   * @return its identity, or null if nothing is there
   * @throws IOException if its attributes cannot be read
   */
  public static Object identity(Path file) throws IOException {
    try {
      return Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS)
          .fileKey();
    } catch (NoSuchFileException e) {
      return null;
    }
  }
}
