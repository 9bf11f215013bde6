package io.leasehold.adapters.file.internal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;

/**
 * The file-system steps of the adapters that keep state in files (the file store and the file tool
 * journal), each decided once: links are never followed, state is created readable by its owner
 * only, and everything acknowledged is forced to disk first. Support for those adapters; not an
 * API.
 */
public final class DurableFiles {
  /** The permissions {@code rw-------}. */
  public static final Set<PosixFilePermission> OWNER_READ_WRITE =
      Set.copyOf(PosixFilePermissions.fromString("rw-------"));

  /** {@code rw-------}: the adapters' own state files (marks, logs, journals, locks). */
  public static final FileAttribute<?> OWNER_ONLY =
      PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"));

  private static final FileAttribute<?> OWNER_ONLY_DIRECTORY =
      PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------"));

  private static final Set<OpenOption> APPEND =
      Set.of(
          StandardOpenOption.CREATE,
          StandardOpenOption.WRITE,
          StandardOpenOption.APPEND,
          LinkOption.NOFOLLOW_LINKS);

  private static final Set<OpenOption> CREATE_NEW =
      Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS);

  private DurableFiles() {}

  /** A step on a new file before it is forced to disk (setting its extended attributes). */
  @FunctionalInterface
  public interface BeforeForce {
    /**
     * The step.
     *
     * @param file the new file
     * @throws IOException if it fails; the file is left for the caller to remove
     */
    void apply(Path file) throws IOException;
  }

  /**
   * Appends bytes, forced to disk (data, not necessarily metadata), to a state file, created
   * owner-only if missing. The caller has checked, before admitting anything, that the file is a
   * regular file or absent ({@link StateFiles}).
   *
   * @param file the log or journal
   * @param bytes whole lines
   * @throws IOException if the append or the force fails
   */
  public static void append(Path file, byte[] bytes) throws IOException {
    try (FileChannel ch = FileChannel.open(file, APPEND, OWNER_ONLY)) {
      writeFully(ch, bytes);
      ch.force(false);
    }
  }

  /**
   * Appends bytes without forcing them: the caller forces the file ({@link #force}) before it
   * relies on them, so that appends of several threads can share one force.
   *
   * @param file the file, which must exist
   * @param bytes what to append
   * @throws IOException if anything fails
   */
  public static void appendUnforced(Path file, byte[] bytes) throws IOException {
    try (FileChannel ch = FileChannel.open(file, APPEND, OWNER_ONLY)) {
      writeFully(ch, bytes);
    }
  }

  /**
   * Forces a file's content to disk: every byte written to it before this call began, through any
   * descriptor of any process.
   *
   * @param file the file
   * @throws IOException if it fails
   */
  public static void force(Path file) throws IOException {
    try (FileChannel ch =
        FileChannel.open(file, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS)) {
      ch.force(false);
    }
  }

  /**
   * The file's absolute path through its directory's real path: a symbolic link to the directory
   * must not give one file a second name (and a second lock).
   *
   * @param file a file whose directory exists
   * @return its canonical path
   * @throws IOException if the directory cannot be resolved
   */
  public static Path inRealDirectory(Path file) throws IOException {
    Path absolute = file.toAbsolutePath().normalize();
    return absolute.getParent().toRealPath().resolve(absolute.getFileName());
  }

  /**
   * Replaces a file by an atomic rename of a new owner-only file written and forced beside it, so a
   * crash leaves the old content or the new; the caller forces the directory when the rename must
   * last.
   *
   * @param file the file to replace
   * @param content its new content
   * @throws IOException if anything fails; the old file is then unchanged
   */
  public static void replace(Path file, byte[] content) throws IOException {
    Path temp =
        file.resolveSibling(file.getFileName() + "." + java.util.UUID.randomUUID() + ".tmp");
    writeNew(temp, content, OWNER_READ_WRITE, f -> {});
    Files.move(temp, file, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
  }

  /**
   * Writes a file that must not exist yet, never through a link, runs {@code beforeForce} on it,
   * and forces content and metadata to disk before it returns.
   *
   * @param file the new file
   * @param content its content
   * @param mode its permissions, set whatever the umask
   * @param beforeForce a step before the force, or {@code f -> {}}
   * @throws IOException if it exists or anything fails
   */
  public static void writeNew(
      Path file, byte[] content, Set<PosixFilePermission> mode, BeforeForce beforeForce)
      throws IOException {
    try (FileChannel ch = FileChannel.open(file, CREATE_NEW, OWNER_ONLY)) {
      // Created owner-only, then widened if asked: never readable by others before it is meant to
      // be.
      if (!mode.equals(OWNER_READ_WRITE)) {
        Files.setPosixFilePermissions(file, mode);
      }
      writeFully(ch, content);
      beforeForce.apply(file);
      ch.force(true);
    }
  }

  /**
   * Creates an empty owner-only state file unless one exists (another process may create it first).
   *
   * @param file the file
   * @throws IOException if it cannot be created
   */
  public static void createOwnerOnly(Path file) throws IOException {
    try {
      Files.createFile(file, OWNER_ONLY);
    } catch (FileAlreadyExistsException e) {
      // another process made it first
    }
  }

  /**
   * Forces a directory's entries to disk (after a rename or a delete in it), without following a
   * link.
   *
   * @param dir the directory
   * @throws IOException if it is not a directory or the force fails
   */
  public static void forceDirectory(Path dir) throws IOException {
    try (FileChannel ch =
        FileChannel.open(dir, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
      ch.force(true);
    }
  }

  /**
   * Makes sure {@code dir} is a real directory of the adapter's own (created 0700 if missing),
   * never a symbolic link planted there: the adapters delete and rename inside these directories,
   * and following a planted link would let them touch files elsewhere.
   *
   * @param dir the directory
   * @throws IOException if it is a link or not a directory (the message names the repair)
   */
  public static void ownDirectory(Path dir) throws IOException {
    if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
      try {
        Files.createDirectory(dir, OWNER_ONLY_DIRECTORY);
      } catch (FileAlreadyExistsException e) {
        // another process made it first; checked below
      }
    }
    if (Files.isSymbolicLink(dir)) {
      throw new IOException(
          dir
              + " is a symbolic link; the store's own directories must be real directories inside"
              + " its root. Remove the link (after checking what it points at and why it is there)");
    }
    if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
      throw new IOException(
          dir + " is not a directory; move it aside so the store can create its own");
    }
  }

  private static void writeFully(FileChannel ch, byte[] bytes) throws IOException {
    ByteBuffer buf = ByteBuffer.wrap(bytes);
    while (buf.hasRemaining()) {
      ch.write(buf);
    }
  }
}
