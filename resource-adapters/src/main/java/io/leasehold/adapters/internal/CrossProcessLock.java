package io.leasehold.adapters.internal;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A lock that holds across threads and processes: a JVM lock, then an OS lock on a lock file.
 * Support for the adapters that persist state in files (the file store, the tool journal); not an
 * API of its own.
 *
 * <p>The JDK's file locks belong to the whole JVM (a second lock of the same file from the same
 * JVM fails instead of waiting), so the in-JVM half must be shared by every instance that locks
 * the same file: a fixed set of stripes, chosen by the file's path, keeps that bounded.
 *
 * <p>Thread-safe.
 */
public final class CrossProcessLock {
  private static final ReentrantLock[] STRIPES = new ReentrantLock[64];

  static {
    for (int i = 0; i < STRIPES.length; i++) {
      STRIPES[i] = new ReentrantLock();
    }
  }

  private final Path lockFile;
  private final ReentrantLock jvmLock;

  /**
   * A lock on a file, created if missing.
   *
   * @param lockFile the lock file; nothing is written to it
   */
  public CrossProcessLock(Path lockFile) {
    // The real path of the directory: two spellings of one file (a symbolic link to its directory)
    // must share one stripe, or the JVM's own file lock fails with OverlappingFileLockException.
    Path absolute = lockFile.toAbsolutePath().normalize();
    Path dir = absolute.getParent();
    try {
      dir = dir.toRealPath();
    } catch (java.io.IOException e) {
      // not there yet: the lock's first use fails with the reason
    }
    this.lockFile = dir.resolve(absolute.getFileName());
    this.jvmLock = STRIPES[Math.floorMod(this.lockFile.hashCode(), STRIPES.length)];
  }

  /**
   * Work done while the lock is held.
   *
   * @param <T> its result
   */
  @FunctionalInterface
  public interface Action<T> {
    /**
     * Does the work.
     *
     * @return the result
     * @throws IOException if the work fails
     */
    T run() throws IOException;
  }

  /**
   * Runs the action while holding the lock against every other thread and process.
   *
   * @param action the action
   * @param <T> its result
   * @return what the action returned
   * @throws IOException if the lock file cannot be opened or locked, or the action fails
   */
  @SuppressWarnings("try") // the FileLock is held for the block's duration, never referenced
  public <T> T call(Action<T> action) throws IOException {
    jvmLock.lock();
    try {
      StateFiles.requireRegularFileOrAbsent(lockFile);
    } catch (IOException | RuntimeException e) {
      jvmLock.unlock();
      throw e;
    }
    try (FileChannel ch =
            FileChannel.open(
                lockFile,
                java.util.Set.of(StandardOpenOption.CREATE, StandardOpenOption.WRITE, java.nio.file.LinkOption.NOFOLLOW_LINKS),
                java.nio.file.attribute.PosixFilePermissions.asFileAttribute(
                    java.nio.file.attribute.PosixFilePermissions.fromString("rw-------")));
        FileLock lock = ch.lock()) {
      return action.run();
    } finally {
      jvmLock.unlock();
    }
  }
}
