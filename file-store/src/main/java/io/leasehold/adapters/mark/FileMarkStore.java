package io.leasehold.adapters.mark;

import io.leasehold.adapters.file.internal.DurableFiles;
import io.leasehold.fencing.Admission;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.MarkReset;
import io.leasehold.fencing.StaleFenceException;
import io.leasehold.fencing.mark.MarkStore;
import io.leasehold.fencing.mark.MarkStoreException;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.UUID;

/**
 * The high-water marks of the file store and the file tool journal, in one directory: {@code
 * marks/} and {@code marks-copy/} (each key's mark twice, see {@link MarkFiles}), {@code admin.log}
 * (the resets, see {@link AdminLog}) and a {@code tmp/} to write marks in. Every fail-closed rule
 * about marks on files (CONTRACT C16) lives here: a damaged, unreadable or oversized mark, one copy
 * deleted or lowered, both directories gone (see {@link #create}), a reset to 0 that keeps a mark
 * of 0, a reset recorded and forced before the mark changes.
 *
 * <p>An admission uses every piece of evidence it has: the persisted mark, the marks this instance
 * admitted while open, and, when the unit of work names one, the writer recorded on the file an
 * operation would replace and the key's other files in its directory. A mark is never taken as
 * lower than any of them says. Both copies rewritten consistently lower while no store had them
 * open, then a write into another directory of the key, is not detected: the marks are the
 * authority, and a walk of the key's whole scope costs time that grows with the session (red team
 * 47; docs/resource-owners.md). The unit of work is the caller's cross-process lock, held around
 * every call; its value is the operation's {@link Evidence}, or null when there is none (a bare
 * admission, a tool journal).
 */
public final class FileMarkStore implements MarkStore<FileMarkStore.Evidence> {
  private static final System.Logger LOG = System.getLogger(FileMarkStore.class.getName());

  /** Keys whose admitted marks this instance remembers; past it, the oldest are forgotten. */
  public static final int MAX_REMEMBERED = 100_000;

  /** How many entries of a directory the first admission of a key looks at (CONTRACT C21). */
  public static final int EVIDENCE_SCAN_LIMIT = 1_000;

  /** Largest mark file read. */
  public static final int MAX_MARK_BYTES = MarkFiles.MAX_MARK_BYTES;

  /** The run id recorded in a mark an operator set: no run ever has it. */
  private static final UUID RESET_RUN = new UUID(0, 0);

  /**
   * The evidence an operation brings besides the mark: the file it would replace, if one exists,
   * and the directory it writes in, if any.
   *
   * @param existing the operation's target if it exists, else null
   * @param directory the target's directory, or null for an operation without a target
   */
  public record Evidence(Path existing, Path directory) {}

  /** Who wrote a file, as far as its recorded token says; empty if unknown. */
  @FunctionalInterface
  public interface WriterLookup {
    /**
     * The token recorded on a file.
     *
     * @param file the file
     * @return its writer, or empty if none can be read
     */
    Optional<FencingToken> writerOf(Path file);
  }

  private final Path dir;
  private final MarkFiles marks;
  private final Path adminLog;
  private final String repair;
  private final WriterLookup writers;

  /** The highest mark this instance admitted or set per key, guarded by the owner's lock. */
  private final Map<LeaseKey, Long> admitted = new HashMap<>();

  /**
   * A mark store in a directory; nothing is read or created until {@link #open}.
   *
   * @param dir the directory holding {@code marks/}, {@code marks-copy/} and {@code admin.log}
   * @param tmp where mark files are written before their rename, on the same file system
   * @param repair how an operator resets a mark, named in every refusal
   * @param writers who wrote a file (the evidence of {@link Evidence}); the tool journal, which
   *     never passes evidence, may give one that knows nobody
   */
  public FileMarkStore(Path dir, Path tmp, String repair, WriterLookup writers) {
    this.dir = dir;
    this.marks =
        new MarkFiles(dir.resolve(MarkFiles.PRIMARY), dir.resolve(MarkFiles.COPY), tmp, repair);
    this.adminLog = dir.resolve("admin.log");
    this.repair = repair;
    this.writers = writers;
  }

  /**
   * The name of a key's mark file in {@code marks/} and {@code marks-copy/}: the hex SHA-256 of the
   * key.
   *
   * @param key the key
   * @return the file name
   */
  public static String fileName(LeaseKey key) {
    return MarkFiles.name(key);
  }

  /**
   * Whether either mark directory exists: false for a new store, one whose marks were all lost, or
   * one in an older layout. The caller then decides what to {@link #create}.
   *
   * @return true if the marks are there to open
   */
  public boolean exists() {
    return Files.exists(marks.primary(), LinkOption.NOFOLLOW_LINKS)
        || Files.exists(marks.copy(), LinkOption.NOFOLLOW_LINKS);
  }

  /**
   * Opens existing marks: both directories must be real directories (never links); a store made
   * before the second copy existed gets it.
   *
   * @throws IOException if a directory is planted or cannot be made
   */
  public void open() throws IOException {
    DurableFiles.ownDirectory(marks.primary());
    boolean singleCopy = !Files.exists(marks.copy(), LinkOption.NOFOLLOW_LINKS);
    DurableFiles.ownDirectory(marks.copy());
    if (singleCopy) {
      marks.migrateFromSingleCopy();
    }
  }

  /**
   * Creates the marks where there were none: the keys {@code lost} are recorded as lost (every
   * operation of theirs refused, naming the fence found, until an operator resets the mark), the
   * keys of {@code carried} keep those marks (an older layout upgraded in place), and the resets
   * {@code resets} are carried into the admin log first. A crash leaves no marks or all of them.
   *
   * @param lost the highest token seen per key whose mark was lost
   * @param carried marks to keep, by key; 0 is a mark of 0
   * @param resets resets to carry over, oldest first
   * @throws IOException if the marks cannot be written
   */
  public void create(List<FencingToken> lost, Map<LeaseKey, Long> carried, List<MarkReset> resets)
      throws IOException {
    DurableFiles.ownDirectory(dir);
    if (!resets.isEmpty()) {
      AdminLog.replace(adminLog, resets);
    }
    Map<LeaseKey, byte[]> records = new LinkedHashMap<>();
    carried.forEach(
        (key, fence) ->
            records.put(
                key,
                fence == 0
                    ? MarkFiles.forgottenRecord(key)
                    : MarkFiles.markRecord(new FencingToken(key, fence, RESET_RUN))));
    lost.forEach(seen -> records.put(seen.key(), MarkFiles.lostRecord(seen)));
    marks.create(records);
  }

  /**
   * Creates the marks of a medium that lost them while its own records survived (a store's files, a
   * journal's calls): the keys {@code lost} are recorded as lost, as by {@link #create}, and a
   * warning says how many keys are refused until an operator resets their marks, and how.
   *
   * @param lost the highest token the records show per key
   * @param whose what lost its marks, for the warning ({@code "the marks of tool journal <file>"})
   * @throws IOException if the marks cannot be written
   */
  public void createLost(List<FencingToken> lost, String whose) throws IOException {
    create(lost, Map.of(), List.of());
    if (!lost.isEmpty()) {
      LOG.log(
          System.Logger.Level.WARNING,
          () ->
              whose
                  + " were missing: "
                  + lost.size()
                  + " key(s) are refused until an operator resets their marks to the lease"
                  + " table's current fence for the key ("
                  + repair
                  + ")");
    }
  }

  @Override
  public Admission admit(Evidence evidence, FencingToken token) {
    try {
      return admitChecked(evidence, token);
    } catch (IOException e) {
      throw failed(e);
    }
  }

  private Admission admitChecked(Evidence evidence, FencingToken token) throws IOException {
    LeaseKey key = token.key();
    OptionalLong stored = marks.read(key);
    long mark = stored.orElse(0);
    Path existing = evidence == null ? null : evidence.existing();

    Optional<FencingToken> writer =
        existing == null
            ? Optional.empty()
            : writers.writerOf(existing).filter(w -> w.key().equals(key));
    if (stored.isEmpty() && writer.isPresent()) {
      throw new IOException(
          "the high-water mark of "
              + key
              + " is missing, but "
              + existing
              + " was written"
              + " by fence "
              + writer.get().fence()
              + " of that key: the marks were lost or deleted."
              + " Every operation of the key is refused until an operator sets the mark again"
              + " ("
              + repair
              + ") to at least the highest fence the"
              + " key ever wrote; the lease table's current fence for the key is a safe choice");
    }
    Long ours = admitted.get(key);
    if (ours != null
        && mark < ours
        && !lastReset(key).map(r -> r.newMark() == mark).orElse(false)) {
      // Issue 27: both copies deleted (or lowered) while open; a key would otherwise be admitted
      // from mark 0, and re-create the mark at the stale fence.
      throw new IOException(
          "the high-water mark of "
              + key
              + " on disk is "
              + mark
              + ", but this store admitted fence "
              + ours
              + " for it while open: the mark files were deleted or lowered. Every operation of the key is"
              + " refused until an operator sets the mark again ("
              + repair
              + ") to at least "
              + ours);
    }
    if (token.fence() < mark) {
      throw new StaleFenceException(token, mark);
    }
    if (writer.isPresent()
        && token.fence() < writer.get().fence()
        && !lastReset(key).map(r -> r.newMark() < writer.get().fence()).orElse(false)) {
      // A file written by fence N is never replaced by a lower fence, unless an operator lowered
      // the mark below N (the recovery after a forged token): a mark lowered by anything else is
      // not believed.
      throw new StaleFenceException(token, writer.get().fence());
    }
    if (evidence != null && evidence.directory() != null && !admitted.containsKey(key)) {
      refuseIfTheKeysFilesOutrankItsMark(key, stored, evidence.directory());
    }
    if (token.fence() > mark) {
      marks.write(token);
    }
    remember(key, Math.max(mark, token.fence()));
    return new Admission(token, mark);
  }

  /**
   * Issue 46, red team: a key's mark files deleted (or restored from an older copy), then a new
   * store on the root, and a stale fence writing a new path was admitted: only the replaced file's
   * writer was evidence, and a new path has none. The key's other files in the target's directory
   * are evidence too: a file the key wrote with a fence above its mark means the mark was lost or
   * lowered, unless an operator set it below that fence. Looked at once per key per instance (then
   * its memory of what it admitted takes over), and at most {@link #EVIDENCE_SCAN_LIMIT} entries,
   * so a large directory costs bounded work.
   */
  private void refuseIfTheKeysFilesOutrankItsMark(LeaseKey key, OptionalLong stored, Path directory)
      throws IOException {
    long mark = stored.orElse(0);
    long highest = 0;
    Path witness = null;
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(directory)) {
      int seen = 0;
      for (Path entry : entries) {
        if (++seen > EVIDENCE_SCAN_LIMIT) {
          break;
        }
        Optional<FencingToken> writer = writers.writerOf(entry).filter(w -> w.key().equals(key));
        if (writer.isPresent() && writer.get().fence() > highest) {
          highest = writer.get().fence();
          witness = entry;
        }
      }
    } catch (NoSuchFileException | NotDirectoryException e) {
      return; // a new directory: nothing in it to outrank the mark
    }
    long found = highest;
    if (witness == null
        || found <= mark
        || lastReset(key).map(r -> r.newMark() < found).orElse(false)) {
      return;
    }
    throw new IOException(
        "the high-water mark of "
            + key
            + " is "
            + (stored.isEmpty() ? "missing" : String.valueOf(mark))
            + ", but "
            + witness
            + " was written by fence "
            + found
            + " of that key: the marks were lost, deleted or"
            + " restored from an older copy. Every operation of the key is refused until an operator sets"
            + " the mark again ("
            + repair
            + ") to at least "
            + found
            + "; the lease table's current fence for the key is a safe choice");
  }

  /**
   * Admits an operation that changes nothing (the delete of a file that is not there): checked like
   * any other, and it raises a mark the key already has, but it creates none. Issue 27: 2,000
   * deletes of missing files by 2,000 keys left 2,000 mark files (CONTRACT C21). A key this
   * instance knows nothing of cannot have been written by an older run here, so no mark is lost.
   *
   * @param token a verified token
   * @return the admission
   * @throws StaleFenceException if the fence is below the mark
   * @throws MarkStoreException if the mark cannot be read or trusted
   */
  public Admission admitIfMarked(FencingToken token) {
    try {
      if (marks.read(token.key()).isEmpty() && !admitted.containsKey(token.key())) {
        return new Admission(token, 0);
      }
    } catch (IOException e) {
      throw failed(e);
    }
    return admit(null, token);
  }

  /**
   * Refuses a token below its key's mark, changing nothing: the check a tool journal makes before
   * it records a call, so that a stale call adds nothing.
   *
   * @param token a verified token
   * @throws StaleFenceException if the fence is below the mark
   * @throws MarkStoreException if the mark cannot be read
   */
  public void refuseIfStale(FencingToken token) {
    long mark = read(null, token.key()).orElse(0);
    if (token.fence() < mark) {
      throw new StaleFenceException(token, mark);
    }
  }

  @Override
  public OptionalLong read(Evidence evidence, LeaseKey key) {
    try {
      OptionalLong mark = marks.read(key);
      return mark.isPresent() && mark.getAsLong() == 0 ? OptionalLong.empty() : mark;
    } catch (IOException e) {
      throw failed(e);
    }
  }

  /**
   * {@inheritDoc}
   *
   * <p>Recorded in {@code admin.log}, forced, before the mark changes. A damaged mark reads as 0
   * here: the reset is its repair, and the log says from what.
   */
  @Override
  public MarkReset reset(
      Evidence evidence, LeaseKey key, long newMark, String operator, String reason, Instant at) {
    try {
      long previous;
      try {
        previous = marks.read(key).orElse(0);
      } catch (IOException damaged) {
        previous = 0; // the damage is what this reset repairs; the log records it from 0
      }
      MarkReset reset = new MarkReset(key, previous, newMark, operator, reason, at);
      AdminLog.append(adminLog, reset);
      if (newMark == 0) {
        // A mark of 0, not no mark (issue 46): with the files gone, the key's next write to a file
        // it wrote before would read as marks deleted behind the owner's back and be refused.
        marks.forget(key);
      } else {
        marks.write(new FencingToken(key, newMark, RESET_RUN));
      }
      remember(key, newMark);
      return reset;
    } catch (IOException e) {
      throw failed(e);
    }
  }

  @Override
  public List<MarkReset> resets(Evidence evidence) {
    try {
      return AdminLog.readAll(adminLog);
    } catch (IOException e) {
      throw failed(e);
    }
  }

  /**
   * The key's last reset in the admin log; read only when the evidence disagrees, which is rare.
   */
  private Optional<MarkReset> lastReset(LeaseKey key) throws IOException {
    List<MarkReset> resets = AdminLog.readAll(adminLog);
    for (int i = resets.size() - 1; i >= 0; i--) {
      if (resets.get(i).key().equals(key)) {
        return Optional.of(resets.get(i));
      }
    }
    return Optional.empty();
  }

  private void remember(LeaseKey key, long mark) {
    if (!admitted.containsKey(key) && admitted.size() >= MAX_REMEMBERED) {
      Iterator<LeaseKey> it = admitted.keySet().iterator();
      it.next();
      it.remove();
    }
    admitted.put(key, mark);
  }

  /** The medium failed or a mark is damaged: the message is the cause's, which names the repair. */
  private static MarkStoreException failed(IOException e) {
    return new MarkStoreException(e.getMessage(), e);
  }
}
