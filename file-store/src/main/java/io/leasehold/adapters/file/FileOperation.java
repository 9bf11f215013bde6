package io.leasehold.adapters.file;

import io.leasehold.fencing.Admission;
import io.leasehold.fencing.internal.Arguments;

/**
 * An operation a {@link FencedFileStore} admitted and completed.
 *
 * @param kind what was done
 * @param path the file's path relative to the store root
 * @param admission the admitted token and the mark before it
 * @param existed whether the file existed before the operation
 */
public record FileOperation(Kind kind, String path, Admission admission, boolean existed) {
  /** Kinds of file operation. */
  public enum Kind {
    /** The file was created or replaced. */
    WRITE,
    /** The file was deleted (or did not exist). */
    DELETE
  }

  /**
   * Checks required components.
   *
   * @throws IllegalArgumentException if a component is null
   */
  public FileOperation {
    Arguments.allRequired(kind, path, admission);
  }
}
