package io.leasehold.reliability;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * The operations one process recorded, appended to a file as JSON lines as they complete, so a
 * process killed with SIGKILL leaves everything it recorded up to its last flushed line.
 * Thread-safe.
 */
final class History implements AutoCloseable {
  private final BufferedWriter out;

  History(Path file) {
    try {
      this.out =
          Files.newBufferedWriter(
              file, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  synchronized void record(Op op) {
    try {
      out.write(op.toJson());
      out.write('\n');
      out.flush();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public synchronized void close() {
    try {
      out.close();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Reads every history file; a line torn by a kill is skipped. */
  static List<Op> read(List<Path> files) {
    List<Op> ops = new ArrayList<>();
    for (Path f : files) {
      try {
        for (String line : Files.readAllLines(f, StandardCharsets.UTF_8)) {
          if (line.endsWith("}")) {
            ops.add(Op.fromJson(line));
          }
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return ops;
  }
}
