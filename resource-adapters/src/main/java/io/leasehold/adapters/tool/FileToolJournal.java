package io.leasehold.adapters.tool;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.leasehold.adapters.internal.CrossProcessLock;
import io.leasehold.adapters.internal.DurableFiles;
import io.leasehold.adapters.ResourceAccessException;
import io.leasehold.adapters.internal.StateFiles;
import io.leasehold.fencing.Admission;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.MarkReset;
import io.leasehold.fencing.StaleFenceException;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.UUID;

/**
 * A durable journal in one append-only file of JSON lines, shared safely by several processes.
 *
 * <p>Every record is appended and forced to disk under a lock that holds across threads and
 * processes (a JVM lock and an OS lock on {@code <file>.lock}); before each operation the journal
 * reads what other processes appended since, so its marks and call states are those of the file.
 * A line torn by a crash is cut off by the next writer. Each line is an object with an {@code
 * "event"} member: {@code intended} (with the call's tool, token, arguments and idempotency key),
 * {@code started}, {@code finished} (with the result), {@code failed} (with the error), {@code
 * refused} (with the highest fence) or {@code mark_reset} (an operator's audited reset: key,
 * previous and new mark, operator, reason, time). The file grows with every call until {@link #compact()} rewrites it with only what is live (it
 * runs by itself when a journal over {@value #COMPACT_ON_OPEN_BYTES} bytes is opened; schedule it
 * for long-running processes); opening then costs time and memory in proportion to the live
 * calls, not to the history. Reading is line by line, so a journal of any size can be opened.
 *
 * <h2>Failing closed (CONTRACT C16)</h2>
 *
 * The marks are also kept in {@code <file>.marks}, appended and forced before the call they admit
 * is journaled: one line per raise ({@code raise <account> <session> <fence>}, key parts as
 * unpadded base64url) or operator reset. A key's mark is the one that file gives, or, for a key
 * it does not name (a journal made before it existed), the one the journal gives: truncating or
 * deleting the journal never lowers a mark. A complete line that cannot be read, in either file,
 * and a file that shrank while in use, refuse every operation with an error naming the file, the
 * line and the repair. The files are created readable by their owner only: they hold tokens,
 * arguments and results. Journal paths are canonical, so two spellings of one file share one lock.
 *
 * <p>Thread-safe, and safe for several processes sharing the file.
 */
public final class FileToolJournal implements ToolJournal {
  private static final ObjectMapper JSON = new ObjectMapper();
  private final Path file;
  private final CrossProcessLock lock;
  private final Path marksFile;
  /** Journals larger than this are compacted when opened. */
  public static final long COMPACT_ON_OPEN_BYTES = 16L << 20;
  private JournalState state = new JournalState();
  private Object journalIdentity;
  private Object marksIdentity;
  private final java.util.Map<LeaseKey, Long> fileMarks = new java.util.HashMap<>();
  private long readUpTo;
  private long linesRead;
  private long marksReadUpTo;
  private long marksLinesRead;

  private final Clock clock;

  private FileToolJournal(Path file, Clock clock, java.time.Duration lockTimeout) {
    this.file = file;
    this.clock = clock;
    this.marksFile = file.resolveSibling(file.getFileName() + ".marks");
    this.lock = new CrossProcessLock(file.resolveSibling(file.getFileName() + ".lock"), lockTimeout);
  }

  /**
   * Opens (creating if needed) a journal file and reads it; mark resets are dated by the system
   * clock (UTC).
   *
   * @param file the journal file; its directory must exist
   * @return the journal
   * @throws ResourceAccessException if the file cannot be read or created
   */
  public static FileToolJournal open(Path file) {
    return open(file, Clock.systemUTC());
  }

  /**
   * Opens (creating if needed) a journal file and reads it.
   *
   * @param file the journal file; its directory must exist
   * @param clock dates mark resets
   * @return the journal
   * @throws ResourceAccessException if the file cannot be read or created
   */
  public static FileToolJournal open(Path file, Clock clock) {
    return open(file, clock, CrossProcessLock.DEFAULT_TIMEOUT);
  }

  /**
   * Opens (creating if needed) a journal file and reads it.
   *
   * @param file the journal file; its directory must exist
   * @param clock dates mark resets
   * @param lockTimeout how long a call waits for the journal's lock while another thread or
   *     process holds it (CONTRACT C21), from 1 ms to 1 h; past it the call fails with {@link
   *     ResourceAccessException} naming the lock file and the holder's pid. The other
   *     {@code open} methods wait 30 s.
   * @return the journal
   * @throws ResourceAccessException if the file cannot be read or created
   */
  public static FileToolJournal open(Path file, Clock clock, java.time.Duration lockTimeout) {
    if (file == null || clock == null) {
      throw new IllegalArgumentException("file and clock must not be null");
    }
    CrossProcessLock.checkTimeout(lockTimeout);
    Path absolute = file.toAbsolutePath().normalize();
    Path canonical;
    try {
      // One journal, one name: a symbolic link to its directory must not make a second lock.
      canonical = absolute.getParent().toRealPath().resolve(absolute.getFileName());
    } catch (IOException e) {
      throw new ResourceAccessException("the directory of tool journal " + absolute + " is not usable: " + e, e);
    }
    FileToolJournal journal = new FileToolJournal(canonical, clock, lockTimeout);
    journal.locked(() -> null);
    if (journal.readUpTo > COMPACT_ON_OPEN_BYTES) {
      journal.compact();
    }
    return journal;
  }

  @Override
  public void intended(ToolCall call) {
    locked(
        () -> {
          state.check(call.token()); // a stale call adds nothing (issue 27, CONTRACT C21)
          append(JournalLines.intended(call));
          state.intended(call);
          return null;
        });
  }

  @Override
  public Admission admitAndStart(FencingToken token, UUID callId) {
    return locked(
        () -> {
          Optional<ToolCall> duplicate = state.inFlightDuplicate(callId);
          if (duplicate.isPresent()) {
            append(JournalLines.refusedDuplicate(callId, duplicate.get().callId()));
            state.refusedDuplicate(callId, duplicate.get().callId());
            ToolCall c = state.call(callId);
            throw new DuplicateCallException(c.tool(), c.idempotencyKey().orElseThrow(), duplicate.get().callId());
          }
          long mark;
          try {
            mark = state.check(token);
          } catch (StaleFenceException e) {
            append(JournalLines.refusedStale(callId, e.highestFence()));
            state.refused(callId, e.highestFence());
            throw e;
          }
          if (token.fence() > mark) {
            appendMark("raise", token.key(), token.fence());
          }
          append(JournalLines.started(callId, token));
          return state.started(token, callId);
        });
  }

  @Override
  public Admission admit(FencingToken token) {
    if (token == null) {
      throw new IllegalArgumentException("token must not be null");
    }
    return locked(
        () -> {
          long mark = state.check(token);
          if (token.fence() > mark) {
            appendMark("raise", token.key(), token.fence());
          }
          state.admit(token);
          return new Admission(token, mark);
        });
  }

  @Override
  public void finished(UUID callId, JsonNode result) {
    locked(
        () -> {
          append(JournalLines.finished(callId, result));
          state.finished(callId, result);
          return null;
        });
  }

  @Override
  public void failed(UUID callId, String error) {
    locked(
        () -> {
          append(JournalLines.failed(callId, error));
          state.failed(callId, error);
          return null;
        });
  }

  @Override
  public List<ToolCall> calls(LeaseKey key) {
    return locked(() -> state.calls(key));
  }

  @Override
  public OptionalLong highWaterMark(LeaseKey key) {
    return locked(() -> state.mark(key));
  }

  @Override
  public MarkReset resetMark(LeaseKey key, long newMark, String operator, String reason) {
    return locked(
        () -> {
          Instant at = clock.instant();
          MarkReset reset =
              new MarkReset(key, state.mark(key).orElse(0), newMark, operator, reason, at);
          appendMark("reset", key, newMark);
          append(JournalLines.reset(reset));
          state.applyReset(reset);
          return reset;
        });
  }

  @Override
  public List<MarkReset> markResets() {
    return locked(() -> state.resets());
  }

  @Override
  public Optional<JsonNode> finishedResult(LeaseKey key, String tool, String idempotencyKey) {
    return locked(() -> state.finishedResult(key, tool, idempotencyKey));
  }

  /**
   * What a compaction did.
   *
   * @param bytesBefore the journal's size before
   * @param bytesAfter its size after
   * @param callsKept the calls kept
   */
  public record Compaction(long bytesBefore, long bytesAfter, int callsKept) {}

  /**
   * Rewrites the journal and its marks file with only what is still live, so that opening it costs
   * time and memory in proportion to that, not to its history: every key's mark, every mark reset
   * (the audit record), every call still in doubt (intended or started), and every finished call
   * with an idempotency key (a retry is answered from it). Finished calls without a key, failed
   * and refused calls are dropped: archive the journal first if you need them. Each file is
   * replaced by an atomic rename, the marks first, so a crash leaves the old file or the new one;
   * other processes notice the new file and read it again. Runs automatically when a journal of
   * more than {@value #COMPACT_ON_OPEN_BYTES} bytes is opened.
   *
   * @return what it did
   * @throws ResourceAccessException if a file cannot be written
   */
  public Compaction compact() {
    return locked(
        () -> {
          long before = readUpTo;
          // 1. The marks, one exact line per key.
          Path marksTemp = marksFile.resolveSibling(marksFile.getFileName() + "." + UUID.randomUUID() + ".tmp");
          StringBuilder marksText = new StringBuilder();
          state.allMarks().forEach((key, fence) -> marksText.append(JournalLines.markLine("reset", key, fence)));
          DurableFiles.writeNew(marksTemp, marksText.toString().getBytes(StandardCharsets.US_ASCII), DurableFiles.OWNER_READ_WRITE, f -> {});
          Files.move(marksTemp, marksFile, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
          // 2. The journal: audit records and live calls, in their order.
          Path temp = file.resolveSibling(file.getFileName() + "." + UUID.randomUUID() + ".tmp");
          java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
          for (MarkReset r : state.resets()) {
            out.write(JournalLines.bytes(JournalLines.reset(r)));
          }
          int kept = 0;
          for (ToolCall c : state.allCalls()) {
            boolean live = c.inDoubt() || (c.state() == ToolCall.State.FINISHED && c.idempotencyKey().isPresent());
            if (!live) {
              continue;
            }
            kept++;
            out.write(JournalLines.bytes(JournalLines.intended(c)));
            if (c.state() != ToolCall.State.INTENDED) {
              out.write(JournalLines.bytes(JournalLines.started(c.callId(), c.token())));
            }
            if (c.state() == ToolCall.State.FINISHED) {
              out.write(JournalLines.bytes(JournalLines.finished(c.callId(), c.result().orElseThrow())));
            }
          }
          byte[] bytes = out.toByteArray();
          DurableFiles.writeNew(temp, bytes, DurableFiles.OWNER_READ_WRITE, f -> {});
          Files.move(temp, file, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
          DurableFiles.forceDirectory(file.getParent());
          forgetEverything();
          catchUp();
          return new Compaction(before, bytes.length, kept);
        });
  }

  /** Drops what was read, so the next catch-up reads the files from the start. */
  private void forgetEverything() {
    state = new JournalState();
    fileMarks.clear();
    readUpTo = 0;
    linesRead = 0;
    marksReadUpTo = 0;
    marksLinesRead = 0;
    journalIdentity = null;
    marksIdentity = null;
  }

  private <T> T locked(CrossProcessLock.Action<T> action) {
    try {
      synchronized (this) {
        return lock.call(
            () -> {
              catchUp();
              return action.run();
            });
      }
    } catch (IOException e) {
      throw new ResourceAccessException("tool journal " + file + " failed: " + e, e);
    }
  }

  /** Applies what was appended since the last read; cuts off a torn last line. */
  private void catchUp() throws IOException {
    // A journal another process compacted is a new file: read it again from its start.
    Object j = identity(file);
    Object m = identity(marksFile);
    if ((journalIdentity != null && j == null) || (marksIdentity != null && m == null)) {
      // Deleted while in use: not a compaction (that replaces the file), but lost state.
      throw new IOException(
          (j == null ? file : marksFile) + " was deleted while in use: every call is refused. Restore it"
              + " from a copy, or reopen the journal after checking the marks (ResetMarkCommand"
              + " --tool-journal) against the lease table");
    }
    if ((journalIdentity != null && !journalIdentity.equals(j)) || (marksIdentity != null && !marksIdentity.equals(m))) {
      forgetEverything();
    }
    catchUpJournal();
    catchUpMarks();
    // The marks file is the authority for every key it names (CONTRACT C16).
    fileMarks.forEach(state::overrideMark);
    journalIdentity = identity(file);
    marksIdentity = identity(marksFile);
  }

  private static Object identity(Path f) throws IOException {
    try {
      return Files.readAttributes(f, java.nio.file.attribute.BasicFileAttributes.class, java.nio.file.LinkOption.NOFOLLOW_LINKS)
          .fileKey();
    } catch (java.nio.file.NoSuchFileException e) {
      return null;
    }
  }

  private void catchUpJournal() throws IOException {
    StateFiles.requireRegularFileOrAbsent(file);
    if (!Files.exists(file, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
      DurableFiles.createOwnerOnly(file);
    }
    try (FileChannel ch =
        FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
      long size = ch.size();
      if (size < readUpTo) {
        throw shrank(file, readUpTo, size);
      }
      long complete = readUpTo;
      try (java.io.BufferedReader in =
          new java.io.BufferedReader(
              new java.io.InputStreamReader(
                  java.nio.channels.Channels.newInputStream(ch.position(readUpTo)), StandardCharsets.UTF_8))) {
        // Read line by line: memory stays proportional to one line, not to the file.
        long position = readUpTo;
        for (String text; (text = in.readLine()) != null; ) {
          long next = position + text.getBytes(StandardCharsets.UTF_8).length + 1;
          if (next > size) {
            break; // the last line has no newline: torn by a crash
          }
          linesRead++;
          try {
            JournalLines.apply(JSON.readTree(text), state, file);
          } catch (IOException | RuntimeException e) {
            throw damaged(file, linesRead, e);
          }
          position = next;
          complete = next;
        }
      }
      if (complete < size) {
        // A writer crashed mid-line; nobody else writes while we hold the lock.
        try (FileChannel w = FileChannel.open(file, StandardOpenOption.WRITE)) {
          w.truncate(complete);
          w.force(true);
        }
      }
      readUpTo = complete;
    }
  }

  private void catchUpMarks() throws IOException {
    StateFiles.requireRegularFileOrAbsent(marksFile);
    if (!Files.exists(marksFile, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
      if (marksReadUpTo > 0) {
        throw shrank(marksFile, marksReadUpTo, 0);
      }
      return;
    }
    byte[] all = Files.readAllBytes(marksFile);
    if (all.length < marksReadUpTo) {
      throw shrank(marksFile, marksReadUpTo, all.length);
    }
    int start = Math.toIntExact(marksReadUpTo);
    for (int i = start; i < all.length; i++) {
      if (all[i] == '\n') {
        marksLinesRead++;
        String text = new String(all, start, i - start, StandardCharsets.US_ASCII);
        try {
          JournalLines.applyMark(text, fileMarks);
        } catch (RuntimeException e) {
          throw damaged(marksFile, marksLinesRead, e);
        }
        start = i + 1;
      }
    }
    marksReadUpTo = start; // a torn last line is read again once complete (writers force first)
  }

  private void appendMark(String kind, LeaseKey key, long fence) throws IOException {
    if (!Files.exists(marksFile, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
      DurableFiles.createOwnerOnly(marksFile);
    }
    DurableFiles.append(marksFile, JournalLines.markLine(kind, key, fence).getBytes(StandardCharsets.US_ASCII));
    catchUpMarks();
  }

  private static IOException damaged(Path f, long line, Exception cause) {
    return new IOException(
        f + " line " + line + " is damaged (" + cause + "). The journal refuses every call until it"
            + " is repaired: stop every process using it, copy the file aside, remove or fix that"
            + " line, and if marks may have been lost reset them with ResetMarkCommand"
            + " --tool-journal to the lease table's current fences",
        cause);
  }

  private static IOException shrank(Path f, long was, long is) {
    return new IOException(
        f + " shrank from " + was + " to " + is + " bytes while in use (truncated or replaced):"
            + " every call is refused. Restore it from a copy, or reopen the journal after checking"
            + " the marks (ResetMarkCommand --tool-journal) against the lease table");
  }

  private void append(ObjectNode line) throws IOException {
    byte[] bytes = JournalLines.bytes(line);
    DurableFiles.append(file, bytes);
    readUpTo += bytes.length;
    linesRead++;
  }
}
