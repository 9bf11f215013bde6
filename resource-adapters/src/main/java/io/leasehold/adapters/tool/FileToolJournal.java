package io.leasehold.adapters.tool;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.leasehold.adapters.ResourceAccessException;
import io.leasehold.adapters.file.internal.CrossProcessLock;
import io.leasehold.adapters.file.internal.DurableFiles;
import io.leasehold.adapters.mark.FileMarkStore;
import io.leasehold.fencing.Admission;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.MarkReset;
import io.leasehold.fencing.StaleFenceException;
import io.leasehold.fencing.internal.Arguments;
import io.leasehold.fencing.mark.MarkStoreException;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.UUID;

/**
 * A durable journal in one append-only file of JSON lines, shared safely by several processes.
 *
 * <p>Every record is appended under a lock that holds across threads and processes (a JVM lock and
 * an OS lock on {@code <file>.lock}) and forced to disk before the call goes on: a call's intent
 * and start are one append, its outcome another, and concurrent calls share a force. Before each
 * operation the journal reads what other processes appended since, so its marks and call states are
 * those of the file. A line torn by a crash is cut off by the next writer. Each line is an object
 * with an {@code "event"} member: {@code intended} (with the call's tool, token, arguments and
 * idempotency key), {@code started}, {@code finished} (with the result), {@code failed} (with the
 * error), {@code refused} (with the highest fence), {@code mark_reset} (an operator's reset,
 * recorded with the marks too) or {@code highest_admitted} (what a compaction keeps of a key's
 * admitted fences).
 *
 * <h2>Bounded by the live state (CONTRACT C21)</h2>
 *
 * The file grows with every call until {@link #compact()} rewrites it with only what is live; it
 * runs by itself once the file passes {@link Builder#compactAbove(long)} (16 MiB) and twice its
 * last compacted size, so the file, the time to open it and the memory held follow the live calls
 * and marks, not the history (and {@link #calls(LeaseKey)} lists settled calls only until the next
 * compaction). Reading is line by line, each line at most {@value #MAX_LINE_BYTES} bytes; a file
 * larger than {@link Builder#maxBytes(long)} (1 GiB) is refused at open with the repair rather than
 * read for minutes.
 *
 * <h2>Failing closed (CONTRACT C16)</h2>
 *
 * The marks live apart, in {@code <file>.marks.d/}, in the file store's form ({@link
 * FileMarkStore}: two copies per key, resets in {@code admin.log}), raised and forced before the
 * call they admit is journaled: truncating or deleting the journal never lowers a mark. The
 * journal's lines (or the line a compaction keeps per key) are a floor the marks never go below, as
 * the SQL journal checks its mark row; a key below it, or with a damaged mark, is refused until an
 * operator resets its mark, and an unreadable or shrunk journal refuses every call. An older {@code
 * <file>.marks} is upgraded in place ({@link JournalMarks}); docs/resource-owners.md has the whole
 * list. Files are owner-only; journal paths are canonical (one file, one lock).
 *
 * <p>Thread-safe, and safe for several processes sharing the file.
 */
public final class FileToolJournal implements ToolJournal {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** The default of {@link Builder#compactAbove(long)}: 16 MiB. */
  public static final long COMPACT_ON_OPEN_BYTES = 16L << 20;

  /** The default of {@link Builder#maxBytes(long)}: 1 GiB. */
  public static final long DEFAULT_MAX_BYTES = 1L << 30;

  /**
   * The longest line the journal writes or reads, 8 MiB: a call whose arguments or result do not
   * fit is refused before anything is written; pass large payloads by reference.
   */
  public static final int MAX_LINE_BYTES = 8 << 20;

  private final Path file;
  private final CrossProcessLock lock;
  private final Clock clock;
  private final long maxBytes;
  private final long compactAbove;
  private final JournalFile journal;
  private final FileMarkStore marks;

  /** Whether the marks were opened (or upgraded), once, under the lock. */
  private boolean marksOpen;

  private JournalState state = new JournalState();

  /** Size when last rewritten (by any process), or 0: compaction runs past twice it. */
  private long compactedSize;

  private FileToolJournal(Path file, Builder b) {
    this.file = file;
    this.clock = b.clock;
    this.maxBytes = b.maxBytes;
    this.compactAbove = b.compactAbove;
    this.lock =
        new CrossProcessLock(file.resolveSibling(file.getFileName() + ".lock"), b.lockTimeout);
    this.journal = new JournalFile(file, MAX_LINE_BYTES);
    this.marks = JournalMarks.of(file);
  }

  /**
   * Opens (creating if needed) a journal file with the defaults of {@link #builder(Path)}.
   *
   * @param file the journal file; its directory must exist
   * @return the journal
   * @throws ResourceAccessException if the file cannot be read or created, is damaged, or is larger
   *     than {@value #DEFAULT_MAX_BYTES} bytes
   */
  public static FileToolJournal open(Path file) {
    return builder(file).build();
  }

  /**
   * Opens (creating if needed) a journal file; otherwise the defaults of {@link #builder(Path)}.
   *
   * @param file the journal file; its directory must exist
   * @param clock dates mark resets
   * @return the journal
   * @throws ResourceAccessException as {@link #open(Path)}
   */
  public static FileToolJournal open(Path file, Clock clock) {
    return builder(file).clock(clock).build();
  }

  /**
   * Opens (creating if needed) a journal file; otherwise the defaults of {@link #builder(Path)}.
   *
   * @param file the journal file; its directory must exist
   * @param clock dates mark resets
   * @param lockTimeout see {@link Builder#lockTimeout(java.time.Duration)}
   * @return the journal
   * @throws ResourceAccessException as {@link #open(Path)}
   */
  public static FileToolJournal open(Path file, Clock clock, java.time.Duration lockTimeout) {
    return builder(file).clock(clock).lockTimeout(lockTimeout).build();
  }

  /**
   * Starts configuring a journal in a file.
   *
   * @param file the journal file; its directory must exist
   * @return a builder: system clock (UTC), 30 s lock wait, {@value #DEFAULT_MAX_BYTES} bytes at
   *     most at open, compaction past {@value #COMPACT_ON_OPEN_BYTES} bytes
   */
  public static Builder builder(Path file) {
    Arguments.required(file, "file");
    return new Builder(file);
  }

  /** Options of a {@link FileToolJournal}; {@link #build()} opens it. */
  public static final class Builder {
    private final Path file;
    private Clock clock = Clock.systemUTC();
    private java.time.Duration lockTimeout = CrossProcessLock.DEFAULT_TIMEOUT;
    private long maxBytes = DEFAULT_MAX_BYTES;
    private long compactAbove = COMPACT_ON_OPEN_BYTES;

    private Builder(Path file) {
      this.file = file;
    }

    /**
     * @param clock dates mark resets
     * @return this builder
     */
    public Builder clock(Clock clock) {
      this.clock = Arguments.required(clock, "clock");
      return this;
    }

    /**
     * @param lockTimeout how long a call waits for the journal's lock while another thread or
     *     process holds it (CONTRACT C21), from 1 ms to 1 h; past it the call fails with {@link
     *     ResourceAccessException} naming the lock file and the holder's pid. Default 30 s.
     * @return this builder
     */
    public Builder lockTimeout(java.time.Duration lockTimeout) {
      CrossProcessLock.checkTimeout(lockTimeout);
      this.lockTimeout = lockTimeout;
      return this;
    }

    /**
     * @param maxBytes the largest journal file this journal reads from its start (when opened, or
     *     after another process rewrote it); a larger one is refused with the repair, so that
     *     opening stays bounded in time (CONTRACT C21). To open an oversized journal once, pass a
     *     larger value: opening compacts it. Default 1 GiB; at least {@link #compactAbove(long)}.
     * @return this builder
     */
    public Builder maxBytes(long maxBytes) {
      this.maxBytes = Arguments.atLeast(maxBytes, 4096, "maxBytes");
      return this;
    }

    /**
     * @param compactAbove the journal compacts itself (see {@link #compact()}) before a call once
     *     it is larger than this and than twice its size after the last compaction, so the file
     *     follows the live state, not the history. Default 16 MiB; at least 4096.
     * @return this builder
     */
    public Builder compactAbove(long compactAbove) {
      this.compactAbove = Arguments.atLeast(compactAbove, 4096, "compactAbove");
      return this;
    }

    /**
     * Opens (creating if needed) the journal and reads it.
     *
     * @return the journal
     * @throws IllegalArgumentException if maxBytes is below compactAbove
     * @throws ResourceAccessException if the file cannot be read or created, is damaged, or is
     *     larger than maxBytes
     */
    public FileToolJournal build() {
      if (maxBytes < compactAbove) {
        throw new IllegalArgumentException(
            "maxBytes (" + maxBytes + ") must be at least compactAbove (" + compactAbove + ")");
      }
      Path canonical;
      try {
        canonical = DurableFiles.inRealDirectory(file); // one journal, one name, one lock
      } catch (IOException e) {
        throw new ResourceAccessException(
            "the directory of tool journal " + file + " is not usable: " + e, e);
      }
      FileToolJournal journal = new FileToolJournal(canonical, this);
      journal.locked(() -> null); // reads it, and compacts it if it is large
      return journal;
    }
  }

  @Override
  public void intended(ToolCall call) {
    locked(
        () -> {
          refuseBelowEvidence(call.token().key());
          marks.refuseIfStale(call.token()); // a stale call adds nothing (issue 27, CONTRACT C21)
          journal.append(JournalLines.intendedLine(call, MAX_LINE_BYTES));
          state.intended(call);
          return null;
        });
  }

  @Override
  public Admission admitAndStart(FencingToken token, UUID callId) {
    return start(token, callId, null);
  }

  @Override
  public Admission admit(FencingToken token) {
    Arguments.required(token, "token");
    return locked(
        () -> {
          refuseBelowEvidence(token.key());
          return marks.admit(null, token);
        });
  }

  /** The journal's lines are evidence its marks never go below (see {@link JournalMarks}). */
  private void refuseBelowEvidence(LeaseKey key) {
    JournalMarks.refuseBelowEvidence(marks, state, key, file);
  }

  /**
   * {@inheritDoc}
   *
   * <p>The intent and the start are one append, forced once before the tool may run (a raised mark
   * is forced to the mark files first, which stay the authority: C9). The force is shared with
   * concurrent calls of this journal ({@link JournalFile#forceUpTo}).
   */
  @Override
  public Admission start(ToolCall call) {
    return start(call.token(), call.callId(), call);
  }

  private Admission start(FencingToken token, UUID callId, ToolCall newCall) {
    Started started = locked(() -> startLocked(token, callId, newCall));
    force(started.number(), "the start of call " + callId + " (the tool did not run)");
    return started.admission();
  }

  /**
   * How many times this journal forced its journal file (not its marks): for tests and benchmarks.
   */
  long journalForces() {
    return journal.forces();
  }

  /** An admitted start, and the number of its append to force before the tool runs. */
  private record Started(Admission admission, long number) {}

  /**
   * Under the lock: records {@code newCall} if given (else the call is recorded already), then
   * admits and starts it, or records its refusal.
   */
  private Started startLocked(FencingToken token, UUID callId, ToolCall newCall)
      throws IOException {
    byte[] intent = new byte[0];
    refuseBelowEvidence(token.key());
    if (newCall != null) {
      marks.refuseIfStale(token); // a stale call adds nothing (issue 27, CONTRACT C21)
      intent = JournalLines.intendedLine(newCall, MAX_LINE_BYTES);
    }
    Optional<ToolCall> duplicate =
        newCall != null ? state.inFlightDuplicateOf(newCall) : state.inFlightDuplicate(callId);
    if (duplicate.isPresent()) {
      UUID other = duplicate.get().callId();
      journal.append(intent, JournalLines.bytes(JournalLines.refusedDuplicate(callId, other)));
      state.intendedUnlessNull(newCall);
      state.refusedDuplicate(callId, other);
      ToolCall c = state.call(callId);
      throw new DuplicateCallException(c.tool(), c.idempotencyKey().orElseThrow(), other);
    }
    Admission admission;
    try {
      admission = marks.admit(null, token); // the raise is forced before the start is journaled
    } catch (
        StaleFenceException e) { // only for a call recorded before: a new one was checked above
      append(JournalLines.refusedStale(callId, e.highestFence()));
      state.refused(callId, e.highestFence());
      throw e;
    }
    long number =
        journal.appendDeferred(intent, JournalLines.bytes(JournalLines.started(callId, token)));
    state.intendedUnlessNull(newCall);
    state.replayStarted(token, callId); // admitted by the marks, the authority
    return new Started(admission, number);
  }

  @Override
  public void finished(UUID callId, JsonNode result) {
    settle(
        callId,
        "the result",
        JournalLines.finished(callId, result),
        () -> state.finished(callId, result));
  }

  @Override
  public void failed(UUID callId, String error) {
    // An error text is a message, not data: past the line limit it is cut, not refused.
    String text =
        error.length() > MAX_LINE_BYTES / 16
            ? error.substring(0, MAX_LINE_BYTES / 16) + " [cut]"
            : error;
    settle(
        callId, "the failure", JournalLines.failed(callId, text), () -> state.failed(callId, text));
  }

  /**
   * Appends a call's outcome under the lock, then forces it with concurrent calls (group commit)
   * before it returns: a retry after a crash must find a result, not run the tool again.
   */
  private void settle(UUID callId, String what, ObjectNode outcome, Runnable apply) {
    long number =
        locked(
            () -> {
              byte[] line = JournalLines.outcomeLine(outcome, what, callId, MAX_LINE_BYTES);
              long n = journal.appendDeferred(line);
              apply.run();
              return n;
            });
    force(number, what + " of call " + callId + " (the call stays in doubt)");
  }

  /** Makes a deferred append durable, shared with concurrent calls (group commit). */
  private void force(long number, String what) {
    try {
      journal.forceUpTo(number);
    } catch (IOException e) {
      throw new ResourceAccessException(
          "tool journal " + file + " could not force " + what + " to disk: " + e, e);
    }
  }

  @Override
  public List<ToolCall> calls(LeaseKey key) {
    return locked(() -> state.calls(key));
  }

  @Override
  public OptionalLong highWaterMark(LeaseKey key) {
    return locked(() -> marks.read(null, key));
  }

  @Override
  public MarkReset resetMark(LeaseKey key, long newMark, String operator, String reason) {
    return locked(
        () -> {
          MarkReset reset = marks.reset(null, key, newMark, operator, reason, clock.instant());
          // Also in the journal, forced: in journal order it restarts the key's evidence, so the
          // fences admitted before it no longer hold the new mark up. A crash before this line
          // leaves the mark below the evidence: refused until the reset is made again.
          append(JournalLines.markReset(reset));
          state.applyReset(reset);
          return reset;
        });
  }

  @Override
  public List<MarkReset> markResets() {
    return locked(() -> marks.resets(null));
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
   * Rewrites the journal with only what is still live, so that opening it costs time and memory in
   * proportion to that, not to its history: every call still in doubt (intended or started), and
   * every finished call with an idempotency key (a retry is answered from it). Finished calls
   * without a key, failed and refused calls are dropped: archive the journal first if you need
   * them. Each key keeps one line with the highest fence admitted since its last reset, the
   * evidence its mark is checked against. The marks and the record of resets live in the mark
   * directory, one small file per key and one line per reset, and are not rewritten. The file is
   * replaced by an atomic rename, so a crash leaves the old file or the new one; other processes
   * notice the new file and read it again. Runs by itself before a call (and at open) once the file
   * is larger than {@link Builder#compactAbove(long)} and than twice its size after the last
   * compaction, so it seldom needs calling.
   *
   * @return what it did
   * @throws ResourceAccessException if a file cannot be written
   */
  public Compaction compact() {
    return locked(this::compactLocked);
  }

  private Compaction compactLocked() throws IOException {
    long before = journal.readUpTo();
    int[] kept = new int[1];
    byte[] bytes = JournalLines.compactedJournal(state, kept);
    DurableFiles.replace(file, bytes);
    DurableFiles.forceDirectory(file.getParent());
    forgetEverything();
    catchUp();
    compactedSize = journal.readUpTo();
    return new Compaction(before, bytes.length, kept[0]);
  }

  /** Drops what was read, so the next catch-up reads the files from the start. */
  private void forgetEverything() {
    state = new JournalState();
    journal.forget();
  }

  private <T> T locked(CrossProcessLock.Action<T> action) {
    try {
      synchronized (this) {
        return lock.call(
            () -> {
              catchUp();
              if (!marksOpen) { // before any compaction: an older journal's marks are read from it
                JournalMarks.open(marks, file, state, journal.readUpTo(), maxBytes);
                marksOpen = true;
              }
              // Before the action, so a failed compaction fails a call that has done nothing yet.
              if (journal.readUpTo() > Math.max(compactAbove, 2 * compactedSize)) {
                compactLocked();
              }
              return action.run();
            });
      }
    } catch (IOException | MarkStoreException e) {
      throw new ResourceAccessException("tool journal " + file + " failed: " + e, e);
    }
  }

  /** Applies what was appended since the last read; cuts off a torn last line. */
  private void catchUp() throws IOException {
    // A journal another process compacted is a new file: read it again from its start.
    boolean replaced = journal.replaced();
    if (replaced) {
      forgetEverything();
    }
    journal.catchUp(line -> JournalLines.apply(JSON.readTree(line), state, file), true, maxBytes);
    if (replaced) {
      compactedSize = journal.readUpTo(); // another process compacted it: this is its live state
    }
  }

  private void append(ObjectNode line) throws IOException {
    journal.append(JournalLines.bytes(line));
  }
}
