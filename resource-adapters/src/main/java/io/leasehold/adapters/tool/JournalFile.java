package io.leasehold.adapters.tool;

import io.leasehold.adapters.file.internal.DurableFiles;
import io.leasehold.adapters.file.internal.StateFiles;
import java.io.IOException;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * An append-only line file of the file journal (the journal, or an older journal's marks file read
 * once to upgrade it) and how far it has been read: every catch-up reads only the lines appended
 * since, one bounded line at a time, and notices a file that shrank, vanished or was replaced by
 * another process's compaction. Not thread-safe; the journal's lock guards it.
 */
final class JournalFile {
  /**
   * Applies one complete line, without its newline; a RuntimeException or IOException is damage.
   */
  interface LineHandler {
    void apply(byte[] line) throws IOException;
  }

  private final Path path;
  private final int maxLineBytes;

  /** Appends made without a force, numbered in the order they completed. */
  private final java.util.concurrent.atomic.AtomicLong deferred =
      new java.util.concurrent.atomic.AtomicLong();

  /** The highest deferred append known forced; guarded by {@link #forcing}. */
  private long forced;

  private final Object forcing = new Object();
  private final java.util.concurrent.atomic.AtomicLong forces =
      new java.util.concurrent.atomic.AtomicLong();
  private long readUpTo;
  private long linesRead;
  private Object identity;

  JournalFile(Path path, int maxLineBytes) {
    this.path = path;
    this.maxLineBytes = maxLineBytes;
  }

  Path path() {
    return path;
  }

  /** Bytes read and applied (or appended by this process). */
  long readUpTo() {
    return readUpTo;
  }

  /** Forgets what was read: the next catch-up reads from the start. */
  void forget() {
    readUpTo = 0;
    linesRead = 0;
    identity = null;
  }

  /**
   * Whether another process replaced the file (a compaction renames a new one into place) since it
   * was last read.
   *
   * @throws IOException if the file was read before and is gone now: lost state, not a compaction
   */
  boolean replaced() throws IOException {
    Object now = StateFiles.identity(path);
    if (identity != null && now == null) {
      throw new IOException(
          path
              + " was deleted while in use: every call is refused. Restore it from a copy, or reopen"
              + " the journal after checking the marks (ResetMarkCommand --tool-journal) against the"
              + " lease table");
    }
    return identity != null && !identity.equals(now);
  }

  /**
   * Applies the complete lines appended since the last read. A last line without its newline is a
   * write in progress or torn by a crash: with {@code cutTornLine} it is cut off (only a holder of
   * the lock writes, so it is torn), otherwise it is read again once complete.
   *
   * @param maxBytesFromStart the largest file read from its start; a larger one is refused
   * @throws IOException if the file shrank, is over the limit, or a line is damaged or too long
   */
  void catchUp(LineHandler handler, boolean cutTornLine, long maxBytesFromStart)
      throws IOException {
    StateFiles.requireRegularFileOrAbsent(path);
    if (!Files.exists(path, LinkOption.NOFOLLOW_LINKS)) {
      if (readUpTo > 0) {
        throw shrank(0);
      }
      DurableFiles.createOwnerOnly(path);
    }
    try (FileChannel ch =
        FileChannel.open(path, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
      long size = ch.size();
      if (size < readUpTo) {
        throw shrank(size);
      }
      if (readUpTo == 0 && size > maxBytesFromStart) {
        throw new IOException(
            path
                + " is "
                + size
                + " bytes, over this journal's maxBytes of "
                + maxBytesFromStart
                + ": it"
                + " was not read, and nothing was changed. Open it once with a larger"
                + " FileToolJournal.builder(file).maxBytes(...), which compacts it to its live calls,"
                + " or archive it (with its .marks.d directory) and start a new journal after resetting the"
                + " marks (ResetMarkCommand --tool-journal) to the lease table's fences");
      }
      BoundedLineReader in =
          new BoundedLineReader(Channels.newInputStream(ch.position(readUpTo)), maxLineBytes);
      while (true) {
        byte[] line;
        try {
          line = in.next();
        } catch (BoundedLineReader.LineTooLongException e) {
          throw damaged(linesRead + 1, e);
        }
        if (line == null) {
          break;
        }
        linesRead++;
        try {
          handler.apply(line);
        } catch (IOException | RuntimeException e) {
          throw damaged(linesRead, e);
        }
        readUpTo += line.length + 1;
      }
      if (cutTornLine && readUpTo < size) {
        try (FileChannel w =
            FileChannel.open(path, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS)) {
          w.truncate(readUpTo);
          w.force(true);
        }
      }
    }
    identity = StateFiles.identity(path);
  }

  /** Appends complete lines (each ending in a newline) in one write and forces them to disk. */
  void append(byte[]... lines) throws IOException {
    byte[] all = joined(lines);
    DurableFiles.append(path, all);
    forces.incrementAndGet();
    readUpTo += all.length;
    linesRead += lines.length;
  }

  /**
   * Appends one complete line without forcing it; {@link #forceUpTo} with the returned number makes
   * it durable. Called under the journal's lock, like {@link #append}.
   *
   * @return the append's number
   */
  long appendDeferred(byte[]... lines) throws IOException {
    byte[] all = joined(lines);
    DurableFiles.appendUnforced(path, all);
    readUpTo += all.length;
    linesRead += lines.length;
    return deferred.incrementAndGet();
  }

  private static byte[] joined(byte[]... lines) {
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    for (byte[] l : lines) {
      out.writeBytes(l);
    }
    return out.toByteArray();
  }

  /**
   * Makes the deferred append numbered {@code number} durable: group commit. Called outside the
   * journal's lock, so other threads append meanwhile; one force covers every append that completed
   * before it began, so a thread whose append a concurrent force covered returns at once. Safe
   * outside the lock because the file is append-only: a later force of the file (by anyone) covers
   * every earlier byte, and no caller acts on its line (runs a tool, returns a result) before its
   * own number is forced. If a compaction replaced the file meanwhile, the new file was forced when
   * it was written, with what the line recorded.
   */
  void forceUpTo(long number) throws IOException {
    synchronized (forcing) {
      if (forced >= number) {
        return;
      }
      long covered = deferred.get();
      DurableFiles.force(path);
      forces.incrementAndGet();
      forced = covered;
    }
  }

  /** How many times this process forced the file: the cost that group commit lowers. */
  long forces() {
    return forces.get();
  }

  private IOException damaged(long line, Exception cause) {
    return new IOException(
        path
            + " line "
            + line
            + " is damaged ("
            + cause
            + "). The journal refuses every call until it"
            + " is repaired: stop every process using it, copy the file aside, remove or fix that"
            + " line, and if marks may have been lost reset them with ResetMarkCommand"
            + " --tool-journal to the lease table's current fences",
        cause);
  }

  private IOException shrank(long size) {
    return new IOException(
        path
            + " shrank from "
            + readUpTo
            + " to "
            + size
            + " bytes while in use (truncated or replaced):"
            + " every call is refused. Restore it from a copy, or reopen the journal after checking"
            + " the marks (ResetMarkCommand --tool-journal) against the lease table");
  }
}
