package io.leasehold.adapters.file;

import io.leasehold.fencing.Admission;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.MarkReset;
import io.leasehold.fencing.StaleFenceException;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The file store's admission decision, with every piece of evidence it has (CONTRACT C16): the
 * persisted mark, the marks this store itself admitted while open, and the writer recorded on the
 * file an operation would replace. A mark is never taken as lower than any of them says. The
 * caller holds the store's lock.
 */
final class MarkAdmissions {
  /** Keys whose admitted marks this store remembers; past it, the oldest are forgotten. */
  static final int MAX_REMEMBERED = 100_000;

  private final MarkFiles marks;
  private final Path adminLog;
  /** The highest mark this store admitted or set per key, guarded by the store's lock. */
  private final Map<LeaseKey, Long> admitted = new HashMap<>();

  MarkAdmissions(MarkFiles marks, Path adminLog) {
    this.marks = marks;
    this.adminLog = adminLog;
  }

  /**
   * Checks and raises the key's mark. {@code existing} is the operation's target if it exists.
   *
   * @throws StaleFenceException if the fence is below the mark, or below the fence that wrote the
   *     file it would replace
   * @throws IOException if the evidence disagrees: the marks were lost, deleted or lowered (the
   *     message names the repair)
   */
  Admission admit(FencingToken token, Path existing) throws IOException {
    return admit(token, existing, null);
  }

  /**
   * {@link #admit(FencingToken, Path)}, with the directory the operation's target lies in: the
   * first time this store admits the key, the files there that the key wrote are evidence too.
   *
   * @param directory the target's directory, or null for an admission without a target
   */
  Admission admit(FencingToken token, Path existing, Path directory) throws IOException {
    LeaseKey key = token.key();
    OptionalLong stored = marks.read(key);
    long mark = stored.orElse(0);

    Optional<FencingToken> writer =
        existing == null ? Optional.empty() : TokenAttributes.readQuietly(existing).filter(w -> w.key().equals(key));
    if (stored.isEmpty() && writer.isPresent()) {
      throw new IOException(
          "the high-water mark of " + key + " is missing, but " + existing + " was written"
              + " by fence " + writer.get().fence() + " of that key: the marks were lost or deleted."
              + " Every operation of the key is refused until an operator sets the mark again"
              + " (FencedFileStore.resetMark or ResetMarkCommand) to at least the highest fence the"
              + " key ever wrote; the lease table's current fence for the key is a safe choice");
    }
    Long ours = admitted.get(key);
    if (ours != null && mark < ours && !lastReset(key).map(r -> r.newMark() == mark).orElse(false)) {
      // Issue 27: both copies deleted (or lowered) while the store was open; a new path would
      // otherwise be admitted from mark 0, and re-create the mark at the stale fence.
      throw new IOException(
          "the high-water mark of " + key + " on disk is " + mark + ", but this store admitted fence " + ours
              + " for it while open: the mark files were deleted or lowered. Every operation of the key is"
              + " refused until an operator sets the mark again (FencedFileStore.resetMark or"
              + " ResetMarkCommand) to at least " + ours);
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
    if (directory != null && !admitted.containsKey(key)) {
      refuseIfTheKeysFilesOutrankItsMark(key, stored, directory);
    }
    if (token.fence() > mark) {
      marks.write(token);
    }
    remember(key, Math.max(mark, token.fence()));
    return new Admission(token, mark);
  }

  /** How many entries of a directory the first admission of a key looks at (CONTRACT C21). */
  static final int EVIDENCE_SCAN_LIMIT = 1_000;

  /**
   * Issue 46, red team: a key's mark files deleted (or restored from an older copy), then a new
   * store on the root, and a stale fence writing a new path was admitted: only the replaced
   * file's writer was evidence, and a new path has none. The key's other files in the target's
   * directory are evidence too: a file the key wrote with a fence above its mark means the mark
   * was lost or lowered, unless an operator set it below that fence. Looked at once per key per
   * store (then the store's own memory of what it admitted takes over), and at most {@link
   * #EVIDENCE_SCAN_LIMIT} entries, so a large directory costs bounded work.
   */
  private void refuseIfTheKeysFilesOutrankItsMark(LeaseKey key, OptionalLong stored, Path directory) throws IOException {
    long mark = stored.orElse(0);
    long highest = 0;
    Path witness = null;
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(directory)) {
      int seen = 0;
      for (Path entry : entries) {
        if (++seen > EVIDENCE_SCAN_LIMIT) {
          break;
        }
        Optional<FencingToken> writer = TokenAttributes.readQuietly(entry).filter(w -> w.key().equals(key));
        if (writer.isPresent() && writer.get().fence() > highest) {
          highest = writer.get().fence();
          witness = entry;
        }
      }
    } catch (NoSuchFileException | NotDirectoryException e) {
      return; // a new directory: nothing in it to outrank the mark
    }
    long found = highest;
    if (witness == null || found <= mark || lastReset(key).map(r -> r.newMark() < found).orElse(false)) {
      return;
    }
    throw new IOException(
        "the high-water mark of " + key + " is " + (stored.isEmpty() ? "missing" : String.valueOf(mark)) + ", but "
            + witness + " was written by fence " + found + " of that key: the marks were lost, deleted or"
            + " restored from an older copy. Every operation of the key is refused until an operator sets"
            + " the mark again (FencedFileStore.resetMark or ResetMarkCommand) to at least " + found
            + "; the lease table's current fence for the key is a safe choice");
  }

  /**
   * Admits an operation that changes nothing (the delete of a file that is not there): checked
   * like any other, and it raises a mark the key already has, but it creates none. Issue 27:
   * 2,000 deletes of missing files by 2,000 keys left 2,000 mark files (CONTRACT C21). A key this
   * store knows nothing of cannot have been written by an older run here, so no mark is lost.
   */
  Admission admitWithoutEffect(FencingToken token) throws IOException {
    if (marks.read(token.key()).isEmpty() && !admitted.containsKey(token.key())) {
      return new Admission(token, 0);
    }
    return admit(token, null);
  }

  /**
   * An operator sets the key's mark: recorded in the admin log, forced, before the mark changes.
   * A damaged mark reads as 0 here: the reset is its repair, and the log says from what.
   */
  MarkReset reset(LeaseKey key, long newMark, String operator, String reason, java.time.Instant at) throws IOException {
    long previous;
    try {
      previous = marks.read(key).orElse(0);
    } catch (IOException damaged) {
      previous = 0;
    }
    MarkReset reset = new MarkReset(key, previous, newMark, operator, reason, at);
    AdminLog.append(adminLog, reset);
    if (newMark == 0) {
      // A mark of 0, not no mark (issue 46): with the files gone, the key's next write to a file
      // it wrote before would read as marks deleted behind the store's back and be refused.
      marks.forget(key);
    } else {
      marks.write(new FencingToken(key, newMark, RESET_RUN));
    }
    remember(key, newMark);
    return reset;
  }

  /** The run id recorded in a mark an operator set: no run ever has it. */
  private static final java.util.UUID RESET_RUN = new java.util.UUID(0, 0);

  /** The key's last reset in the admin log; read only when the evidence disagrees, which is rare. */
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
}
