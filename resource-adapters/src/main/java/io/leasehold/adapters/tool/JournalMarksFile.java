package io.leasehold.adapters.tool;

import io.leasehold.adapters.internal.DurableFiles;
import io.leasehold.fencing.LeaseKey;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * The file journal's marks file ({@code <journal>.marks}): one line per raise or reset, each
 * forced before the call it admits is journaled, and the marks it gives, which are the authority
 * for every key they name (CONTRACT C16). Used under the journal's lock.
 */
final class JournalMarksFile {
  private final JournalFile file;
  private final Map<LeaseKey, Long> marks = new HashMap<>();

  JournalMarksFile(Path path, int maxLineBytes) {
    this.file = new JournalFile(path, maxLineBytes);
  }

  Path path() {
    return file.path();
  }

  /** The marks read so far, by key. */
  Map<LeaseKey, Long> marks() {
    return marks;
  }

  /** Reads the lines appended since the last read (by any process). */
  void catchUp(long maxBytes) throws IOException {
    file.catchUp(line -> JournalLines.applyMark(new String(line, StandardCharsets.US_ASCII), marks), false, maxBytes);
  }

  /** Appends and forces one line ({@code raise} or {@code reset}), then reads it back. */
  void append(String kind, LeaseKey key, long fence, long maxBytes) throws IOException {
    DurableFiles.append(file.path(), JournalLines.markLine(kind, key, fence).getBytes(StandardCharsets.US_ASCII));
    catchUp(maxBytes);
  }

  /** See {@link JournalFile#replaced()}. */
  boolean replaced() throws IOException {
    return file.replaced();
  }

  /** Forgets what was read: the next catch-up reads from the start. */
  void forget() {
    marks.clear();
    file.forget();
  }
}
