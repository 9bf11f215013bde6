package io.leasehold.adapters.file;

import io.leasehold.adapters.file.internal.DurableFiles;
import io.leasehold.adapters.file.internal.StateFiles;
import io.leasehold.fencing.Admission;
import io.leasehold.fencing.FencingToken;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The file store's optional audit log, {@code .leasehold/audit.log}: one line per admitted
 * operation, {@code <kind> <token> <base64url path> <previous mark> <existed>}, appended and forced
 * under the store's lock before the operation is acknowledged. The marks never depend on it. The
 * caller holds the store's lock; thread-safe otherwise.
 */
final class AuditLog {
  private static final System.Logger LOG = System.getLogger(FencedFileStore.class.getName());

  private final Path file;
  private final boolean enabled;
  private final AtomicInteger damagedLines = new AtomicInteger();

  /** The log in the store's own directory; nothing is written to it unless enabled. */
  AuditLog(Path storeDirectory, boolean enabled) {
    this.file = storeDirectory.resolve("audit.log");
    this.enabled = enabled;
  }

  boolean enabled() {
    return enabled;
  }

  /** How many damaged lines {@link #read} skipped so far in this process. */
  int damagedLines() {
    return damagedLines.get();
  }

  /** Refuses, before anything is admitted, a log that could not be appended to. */
  void checkAppendable() throws IOException {
    if (enabled) {
      StateFiles.requireRegularFileOrAbsent(file);
    }
  }

  void append(FileOperation op) throws IOException {
    if (!enabled) {
      return;
    }
    DurableFiles.append(
        file,
        (op.kind()
                + " "
                + op.admission().token().unsigned().toText()
                + " "
                + Base64.getUrlEncoder()
                    .withoutPadding()
                    .encodeToString(op.path().getBytes(StandardCharsets.UTF_8))
                + " "
                + op.admission().previousMark()
                + " "
                + op.existed()
                + "\n")
            .getBytes(StandardCharsets.US_ASCII));
  }

  /**
   * Every entry in admission order. A damaged line (a torn append, an edit) is skipped, logged and
   * counted, so that one bad line does not hide the rest of the record.
   */
  List<FileOperation> read() throws IOException {
    List<FileOperation> ops = new ArrayList<>();
    if (!Files.exists(file)) {
      return ops;
    }
    StateFiles.requireRegularFileOrAbsent(file);
    List<String> lines = Files.readAllLines(file, StandardCharsets.ISO_8859_1);
    for (int i = 0; i < lines.size(); i++) {
      try {
        String[] f = lines.get(i).split(" ", -1);
        if (f.length != 5 || !(f[4].equals("true") || f[4].equals("false"))) {
          throw new IllegalArgumentException("expected 5 fields");
        }
        FencingToken token = FencingToken.parse(f[1]);
        ops.add(
            new FileOperation(
                FileOperation.Kind.valueOf(f[0]),
                StorePaths.check(
                    new String(Base64.getUrlDecoder().decode(f[2]), StandardCharsets.UTF_8)),
                new Admission(token, Long.parseLong(f[3])),
                Boolean.parseBoolean(f[4])));
      } catch (IllegalArgumentException e) {
        int number = i + 1;
        damagedLines.incrementAndGet();
        LOG.log(
            System.Logger.Level.WARNING,
            () -> file + " line " + number + " is damaged and was skipped: " + e.getMessage());
      }
    }
    return ops;
  }
}
