package io.leasehold.adapters.tool;

import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;

/**
 * Reads newline-terminated lines from a stream without ever holding more than one line of at most a
 * given length: a journal file is outside input, and one line of gigabytes must be an error, not an
 * {@link OutOfMemoryError} (CONTRACT C21).
 */
final class BoundedLineReader {
  private final InputStream in;
  private final int maxLineBytes;
  private final byte[] buffer = new byte[64 * 1024];
  private int pos;
  private int end;
  private byte[] line = new byte[256];
  private int lineLength;

  BoundedLineReader(InputStream in, int maxLineBytes) {
    this.in = in;
    this.maxLineBytes = maxLineBytes;
  }

  /** A line longer than the reader accepts. */
  static final class LineTooLongException extends IOException {
    private static final long serialVersionUID = 1L;

    LineTooLongException(int max) {
      super("a line is longer than " + max + " bytes");
    }
  }

  /**
   * The next complete line, without its newline, or null at the end of the stream. Bytes after the
   * last newline (a line torn by a crash) are not returned; {@link #pendingBytes()} counts them.
   *
   * @throws LineTooLongException if a line exceeds the limit, terminated or not
   */
  byte[] next() throws IOException {
    lineLength = 0;
    while (true) {
      if (pos == end) {
        end = in.read(buffer, 0, buffer.length);
        pos = 0;
        if (end <= 0) {
          end = 0;
          return null;
        }
      }
      int start = pos;
      while (pos < end && buffer[pos] != '\n') {
        pos++;
      }
      add(start, pos - start);
      if (pos < end) {
        pos++; // the newline
        return Arrays.copyOf(line, lineLength);
      }
    }
  }

  /** Bytes read after the last complete line: a torn line's length. */
  int pendingBytes() {
    return lineLength;
  }

  private void add(int from, int length) throws LineTooLongException {
    if ((long) lineLength + length > maxLineBytes) {
      throw new LineTooLongException(maxLineBytes);
    }
    if (lineLength + length > line.length) {
      line =
          Arrays.copyOf(
              line, Math.max(lineLength + length, Math.min(maxLineBytes, line.length * 2)));
    }
    System.arraycopy(buffer, from, line, lineLength, length);
    lineLength += length;
  }
}
