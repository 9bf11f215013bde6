package io.leasehold.adapters.tool;

import io.leasehold.adapters.internal.DurableFiles;
import io.leasehold.adapters.mark.FileMarkStore;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
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
 * Where the file journal keeps its marks, and how it opens them: a {@link FileMarkStore} in
 * {@code <journal>.marks.d/}, the form the file store keeps its own in. Opening decides once,
 * under the journal's lock, what a missing mark directory means:
 *
 * <ul>
 *   <li>a journal written before this layout has its marks in {@code <journal>.marks} (append-only
 *       lines, see {@link JournalLines#applyMark}): they are upgraded in place, each key keeping
 *       the mark that file gives or, for a key it does not name, the one the journal gives, and
 *       the journal's {@code mark_reset} records are carried into the new {@code admin.log}; the
 *       old file is removed once the new marks are in place;
 *   <li>an empty journal is a new one: it starts without marks;
 *   <li>otherwise the marks were lost (deleted with their directory): each key the journal names
 *       is recorded as lost and refused until an operator resets its mark (CONTRACT C16).
 * </ul>
 */
final class JournalMarks {
  private static final System.Logger LOG = System.getLogger(FileToolJournal.class.getName());

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
   * Opens the journal's marks, creating them as the class comment says; the journal has been
   * read into {@code state} ({@code journalBytes} of it).
   */
  static void open(FileMarkStore marks, Path file, JournalState state, long journalBytes, long maxBytes)
      throws IOException {
    Path dir = markDirectory(file);
    DurableFiles.ownDirectory(dir);
    DurableFiles.ownDirectory(dir.resolve("tmp"));
    DurableFiles.forceDirectory(file.getParent());
    Path older = olderMarksFile(file);
    if (marks.exists()) {
      marks.open();
    } else if (Files.exists(older, LinkOption.NOFOLLOW_LINKS)) {
      Map<LeaseKey, Long> carried = new HashMap<>(state.allMarks());
      carried.putAll(readOlderMarks(older, maxBytes)); // the authority for every key it names
      marks.create(List.of(), carried, state.resets());
    } else if (journalBytes == 0) {
      marks.create(List.of(), Map.of(), List.of());
    } else {
      List<FencingToken> lost = new ArrayList<>();
      state.allMarks().forEach((key, fence) -> {
        if (fence > 0) {
          lost.add(new FencingToken(key, fence, new UUID(0, 0)));
        }
      });
      marks.create(lost, Map.of(), List.of());
      if (!lost.isEmpty()) {
        LOG.log(
            System.Logger.Level.WARNING,
            () -> "the marks of tool journal " + file + " were missing: " + lost.size() + " key(s) it names are"
                + " refused until an operator resets their marks (" + REPAIR + ")");
      }
    }
    // Carried into the mark directory (or left by a crash after that): never read again.
    Files.deleteIfExists(older);
  }

  /** The marks an older marks file gives: a raise keeps the higher fence, a reset sets it. */
  private static Map<LeaseKey, Long> readOlderMarks(Path older, long maxBytes) throws IOException {
    Map<LeaseKey, Long> marks = new HashMap<>();
    new JournalFile(older, FileToolJournal.MAX_LINE_BYTES)
        .catchUp(line -> JournalLines.applyMark(new String(line, StandardCharsets.US_ASCII), marks), false, maxBytes);
    return marks;
  }
}
