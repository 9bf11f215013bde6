package io.leasehold.adapters.file;

import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.internal.Arguments;
import java.util.Arrays;
import java.util.Optional;

/**
 * A file read from a {@link FencedFileStore}.
 *
 * @param path the file's path relative to the store root
 * @param content the file's bytes (a copy)
 * @param writtenBy the token of the write that produced this content; empty for a file the store
 *     did not write (put there by other means)
 */
public record StoredFile(String path, byte[] content, Optional<FencingToken> writtenBy) {
  /**
   * Copies the content.
   *
   * @throws IllegalArgumentException if a component is null
   */
  public StoredFile {
    Arguments.allRequired(path, content, writtenBy);
    content = content.clone();
  }

  /**
   * The content (a copy).
   *
   * @return the bytes
   */
  @Override
  public byte[] content() {
    return content.clone();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof StoredFile f
        && path.equals(f.path)
        && Arrays.equals(content, f.content)
        && writtenBy.equals(f.writtenBy);
  }

  @Override
  public int hashCode() {
    return 31 * (31 * path.hashCode() + Arrays.hashCode(content)) + writtenBy.hashCode();
  }

  @Override
  public String toString() {
    return "StoredFile[" + path + ", " + content.length + " bytes, writtenBy=" + writtenBy + "]";
  }
}
