package io.leasehold.adapters.file.internal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A lock that holds across threads and processes: a JVM lock, then an OS lock on a lock file.
 * Support for the adapters that persist state in files (the file store, the tool journal); not an
 * API of its own.
 *
 * <p>The JDK's file locks belong to the whole JVM (a second lock of the same file from the same JVM
 * fails instead of waiting), so the in-JVM half must be shared by every instance that locks the
 * same file: a fixed set of stripes, chosen by the file's path, keeps that bounded.
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

  /** The default bound on a lock wait. */
  public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(30);

  /** Pause between two tries of the OS lock: short, since a holder's operation is short. */
  private static final long RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(2);

  private final Path lockFile;
  private final Duration timeout;
  private final ReentrantLock jvmLock;

  /**
   * A lock on a file, created if missing.
   *
   * @param lockFile the lock file; the holder writes its process id into it
   */
  public CrossProcessLock(Path lockFile) {
    this(lockFile, DEFAULT_TIMEOUT);
  }

  /**
   * A lock on a file, created if missing, whose waits end after {@code timeout} (CONTRACT C21).
   *
   * @param lockFile the lock file; the holder writes its process id into it
   * @param timeout the longest wait, from 1 ms to 1 h
   */
  public CrossProcessLock(Path lockFile, Duration timeout) {
    this.timeout = checkTimeout(timeout);
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
   * Checks a lock timeout, for the adapters' builders to refuse a bad one before anything opens.
   *
   * @param timeout the timeout
   * @return the timeout
   * @throws IllegalArgumentException if it is null or not between 1 ms and 1 h
   */
  public static Duration checkTimeout(Duration timeout) {
    if (timeout == null || timeout.toMillis() < 1 || timeout.compareTo(Duration.ofHours(1)) > 0) {
      throw new IllegalArgumentException(
          "lockTimeout must be between 1 ms and 1 h, was " + timeout);
    }
    return timeout;
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
   * @throws IOException if the lock file cannot be opened or locked, the wait passes the timeout
   *     (the message names the lock file and its holder's pid where known), or the action fails
   */
  public <T> T call(Action<T> action) throws IOException {
    long deadline = System.nanoTime() + timeout.toNanos();
    try {
      if (!jvmLock.tryLock(timeout.toNanos(), TimeUnit.NANOSECONDS)) {
        throw timedOut("another thread of this process");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while waiting for " + lockFile, e);
    }
    try {
      StateFiles.requireRegularFileOrAbsent(lockFile);
      try (FileChannel ch =
          FileChannel.open(
              lockFile,
              java.util.Set.of(
                  StandardOpenOption.CREATE,
                  StandardOpenOption.READ,
                  StandardOpenOption.WRITE,
                  java.nio.file.LinkOption.NOFOLLOW_LINKS),
              DurableFiles.OWNER_ONLY)) {
        FileLock lock = acquire(ch, deadline);
        try {
          recordHolder(ch);
          return action.run();
        } finally {
          lock.release();
        }
      }
    } finally {
      jvmLock.unlock();
    }
  }

  /** Tries the OS lock until the deadline: {@link FileChannel#lock()} would wait without end. */
  private FileLock acquire(FileChannel ch, long deadline) throws IOException {
    while (true) {
      FileLock lock = ch.tryLock();
      if (lock != null) {
        return lock;
      }
      if (System.nanoTime() - deadline >= 0) {
        throw timedOut(holderOf(ch));
      }
      java.util.concurrent.locks.LockSupport.parkNanos(RETRY_NANOS);
      if (Thread.interrupted()) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted while waiting for " + lockFile);
      }
    }
  }

  /** Writes this process's id into the lock file, for the error of whoever waits next. */
  private static void recordHolder(FileChannel ch) throws IOException {
    byte[] pid =
        ("pid " + ProcessHandle.current().pid() + "\n").getBytes(StandardCharsets.US_ASCII);
    ch.truncate(0);
    ch.write(ByteBuffer.wrap(pid), 0);
  }

  /** Who holds the lock, from what the holder wrote: at most one short line is read. */
  private static String holderOf(FileChannel ch) {
    try {
      ByteBuffer buf = ByteBuffer.allocate(32);
      ch.read(buf, 0);
      String text = new String(buf.array(), 0, buf.position(), StandardCharsets.US_ASCII).strip();
      return text.matches("pid [0-9]{1,10}")
          ? "process " + text.substring(4)
          : "another process (pid unknown)";
    } catch (IOException e) {
      return "another process (pid unknown)";
    }
  }

  private IOException timedOut(String holder) {
    return new IOException(
        "waited "
            + timeout.toMillis()
            + " ms for the lock "
            + lockFile
            + ", held by "
            + holder
            + "; if that process is stuck, stop it (the lock is released when it exits), or raise the"
            + " lock timeout if its operations are legitimately slow");
  }
}
