package io.leasehold.adapters.file.internal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;

/**
 * A check the adapters that keep state in files (the file store, the tool journal) make before they
 * open one of their own files: it must be a regular file, or not exist yet. Support for those
 * adapters, like {@link CrossProcessLock}; not an API of its own.
 *
 * <p>Why (CONTRACT C16): opening a named pipe blocks until someone opens its other end, and the
 * adapters open their files while holding a lock that every thread and process of the resource
 * waits for, so a pipe planted where a state file belongs would hang the whole resource instead of
 * refusing. The check reads the file's type without following a link, before the open.
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
}
