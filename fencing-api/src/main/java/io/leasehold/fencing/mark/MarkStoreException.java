package io.leasehold.fencing.mark;

import io.leasehold.fencing.LeaseholdException;

/**
 * A {@link MarkStore} could not prove an admission safe: its medium failed, or a mark is damaged,
 * missing or was changed outside the store. The message names the key (where there is one) and the
 * repair, usually an operator's mark reset. Nothing changed. Retrying helps only when the cause is
 * transient (a lock wait, a lost connection); a damaged mark refuses until repaired.
 */
public class MarkStoreException extends LeaseholdException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception.
   *
   * @param message what failed and how to repair it
   * @param cause the medium's failure, or null
   */
  public MarkStoreException(String message, Throwable cause) {
    super(message, cause);
  }
}
