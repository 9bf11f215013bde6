package io.leasehold.adapters.tool;

import io.leasehold.adapters.file.internal.DurableFiles;
import io.leasehold.adapters.mark.FileMarkStore;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.MarkReset;
import io.leasehold.fencing.mark.MarkStoreException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * Where the file journal keeps its marks, and how it opens them: a {@link FileMarkStore} in {@code
 * <journal>.marks.d/}, the form the file store keeps its own in. Opening decides once, under the
 * journal's lock, what a missing mark directory means:
 *
 * <ul>
 *   <li>a journal written before this layout has its marks in {@code <journal>.marks} (append-only
 *       lines, see {@link JournalLines#applyMark}): they are upgraded in place, each key keeping
 *       the higher of the mark that file gives and the journal's evidence (the highest fence its
 *       lines show admitted since the key's last reset), a reset line in that file lowering a mark
 *       only where the journal recorded the same reset; the journal's {@code mark_reset} records
 *       are carried into the new {@code admin.log}; the old file is removed once the new marks are
 *       in place;
 *   <li>an empty journal is a new one: it starts without marks;
 *   <li>otherwise the marks were lost (deleted with their directory): each key the journal shows
 *       admitted above 0 (a compacted journal keeps that evidence) is recorded as lost and refused
 *       until an operator resets its mark (CONTRACT C16).
 * </ul>
 *
 * <p>Once open, every admission checks the key's mark against the same evidence ({@link
 * #refuseBelowEvidence}).
 */
final class JournalMarks {

  /** How a journal's marks are repaired, named in every refusal. */
  static final String REPAIR = "FileToolJournal.resetMark or ResetMarkCommand --tool-journal";

  private JournalMarks() {}

  /** The mark store of the journal {@code file}. */
  static FileMarkStore of(Path file) {
    Path dir = markDirectory(file);
    return new FileMarkStore(dir, dir.resolve("tmp"), REPAIR, anyFile -> Optional.empty());
  }

  /** {@code <journal>.marks.d}. */
  static Path markDirectory(Path file) {
    return file.resolveSibling(file.getFileName() + ".marks.d");
  }

  /** {@code <journal>.marks}, the marks file of journals written before the mark directory. */
  static Path olderMarksFile(Path file) {
    return file.resolveSibling(file.getFileName() + ".marks");
  }

  /**
   * Opens the journal's marks, creating them as the class comment says; the journal has been read
   * into {@code state} ({@code journalBytes} of it).
   */
  static void open(
      FileMarkStore marks, Path file, JournalState state, long journalBytes, long maxBytes)
      throws IOException {
    Path dir = markDirectory(file);
    DurableFiles.ownDirectory(dir);
    DurableFiles.ownDirectory(dir.resolve("tmp"));
    DurableFiles.forceDirectory(file.getParent());
    Path older = olderMarksFile(file);
    if (marks.exists()) {
      marks.open();
    } else if (Files.exists(older, LinkOption.NOFOLLOW_LINKS)) {
      // Never below what the journal's own lines show admitted since the key's last reset: an
      // older marks file planted or restored lower does not lower a mark (CONTRACT C16).
      Map<LeaseKey, Long> carried = new HashMap<>(state.allEvidence());
      readOlderMarks(older, maxBytes, state.resets())
          .forEach((key, fence) -> carried.merge(key, fence, Math::max));
      marks.create(List.of(), carried, state.resets());
    } else if (journalBytes == 0) {
      marks.create(List.of(), Map.of(), List.of());
    } else {
      List<FencingToken> lost = new ArrayList<>();
      state
          .allEvidence()
          .forEach(
              (key, fence) -> {
                if (fence > 0) {
                  lost.add(new FencingToken(key, fence, new UUID(0, 0)));
                }
              });
      marks.createLost(lost, "the marks of tool journal " + file);
    }
    // Carried into the mark directory (or left by a crash after that): never read again.
    Files.deleteIfExists(older);
  }

  /**
   * The marks an older marks file gives: a raise keeps the higher fence; a reset sets it only if
   * the journal recorded that reset ({@code journalResets}, each matched once), else it lowers
   * nothing (a reset line written into the file by hand is not an audited reset).
   */
  private static Map<LeaseKey, Long> readOlderMarks(
      Path older, long maxBytes, List<MarkReset> journalResets) throws IOException {
    Map<LeaseKey, Long> marks = new HashMap<>();
    List<MarkReset> unmatched = new ArrayList<>(journalResets);
    new JournalFile(older, FileToolJournal.MAX_LINE_BYTES)
        .catchUp(
            line ->
                JournalLines.applyMark(
                    new String(line, StandardCharsets.US_ASCII), marks, unmatched),
            false,
            maxBytes);
    return marks;
  }

  /**
   * Refuses every call of a key whose mark is below what the journal's lines show admitted since
   * the key's last reset (CONTRACT C16), as the SQL journal checks its mark row against its calls:
   * the mark files were deleted, lowered or restored from an older copy, here or by another
   * process, whose lines {@code state} has caught up. Reads the mark only for a key the journal has
   * admitted a fence above 0 for.
   *
   * @throws MarkStoreException naming the repair
   */
  static void refuseBelowEvidence(
      FileMarkStore marks, JournalState state, LeaseKey key, Path file) {
    long admitted = state.evidence(key);
    if (admitted == 0) {
      return;
    }
    long mark = marks.read(null, key).orElse(0);
    if (mark < admitted) {
      throw new MarkStoreException(
          "the mark of "
              + key
              + " in "
              + markDirectory(file)
              + " is "
              + mark
              + ", but tool journal "
              + file
              + " shows fence "
              + admitted
              + " admitted since the key's last reset: the mark files were deleted,"
              + " lowered or restored from an older copy. Every call of the key is refused until an operator"
              + " resets its mark ("
              + REPAIR
              + ", or FencedToolExecutor.resetMark) to at least "
              + admitted
              + "; the lease table's current fence for the key is a safe choice",
          null);
    }
  }
}
