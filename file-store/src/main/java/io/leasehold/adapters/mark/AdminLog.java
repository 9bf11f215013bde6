package io.leasehold.adapters.mark;

import io.leasehold.adapters.file.internal.DurableFiles;
import io.leasehold.adapters.file.internal.StateFiles;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.MarkReset;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/**
 * The line format of a {@link FileMarkStore}'s {@code admin.log}, its record of mark resets: one
 * line per mark reset, ASCII, fields separated by one space: {@code reset <account> <session>
 * <previous> <new> <operator> <reason> <instant>}, text fields as unpadded base64url of UTF-8 so no
 * field can contain a space or a line break.
 */
final class AdminLog {
  private AdminLog() {}

  /** Appends a reset, forced to disk; the caller holds the owner's lock. */
  static void append(Path log, MarkReset reset) throws IOException {
    StateFiles.requireRegularFileOrAbsent(log);
    DurableFiles.append(log, format(reset).getBytes(StandardCharsets.US_ASCII));
  }

  /**
   * Writes a whole log at once (an upgrade carrying an older layout's resets), replacing any a
   * crashed upgrade left, by an atomic rename.
   */
  static void replace(Path log, List<MarkReset> resets) throws IOException {
    StateFiles.requireRegularFileOrAbsent(log);
    StringBuilder text = new StringBuilder();
    resets.forEach(r -> text.append(format(r)));
    DurableFiles.replace(log, text.toString().getBytes(StandardCharsets.US_ASCII));
  }

  /** Every reset in the log, oldest first; the caller holds the owner's lock. */
  static List<MarkReset> readAll(Path log) throws IOException {
    List<MarkReset> out = new ArrayList<>();
    if (!Files.exists(log, LinkOption.NOFOLLOW_LINKS)) {
      return out;
    }
    StateFiles.requireRegularFileOrAbsent(log);
    List<String> lines = Files.readAllLines(log, StandardCharsets.US_ASCII);
    for (int i = 0; i < lines.size(); i++) {
      out.add(parse(lines.get(i), log, i + 1));
    }
    return out;
  }

  static String format(MarkReset r) {
    return "reset "
        + b64(r.key().accountId())
        + ' '
        + b64(r.key().sessionId())
        + ' '
        + r.previousMark()
        + ' '
        + r.newMark()
        + ' '
        + b64(r.operator())
        + ' '
        + b64(r.reason())
        + ' '
        + r.at()
        + '\n';
  }

  static MarkReset parse(String line, Path file, int number) throws IOException {
    String[] f = line.split(" ", -1);
    try {
      if (f.length != 8 || !f[0].equals("reset")) {
        throw new IllegalArgumentException("expected 8 fields starting with 'reset'");
      }
      return new MarkReset(
          LeaseKey.of(text(f[1]), text(f[2])),
          Long.parseLong(f[3]),
          Long.parseLong(f[4]),
          text(f[5]),
          text(f[6]),
          Instant.parse(f[7]));
    } catch (IllegalArgumentException | DateTimeParseException e) {
      throw new IOException(
          file
              + " line "
              + number
              + " is damaged ("
              + e.getMessage()
              + "); the marks are not"
              + " affected: move the file aside to keep its readable lines for the record",
          e);
    }
  }

  private static String b64(String s) {
    return Base64.getUrlEncoder()
        .withoutPadding()
        .encodeToString(s.getBytes(StandardCharsets.UTF_8));
  }

  private static String text(String field) {
    return new String(Base64.getUrlDecoder().decode(field), StandardCharsets.UTF_8);
  }
}
