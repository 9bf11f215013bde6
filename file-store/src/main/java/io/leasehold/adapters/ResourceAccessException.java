package io.leasehold.adapters;

import io.leasehold.fencing.LeaseholdException;

/**
 * A resource could not be read or written (an I/O or database failure). The resource is left in its
 * state before the operation or, for a file store, possibly with the operation complete but
 * unacknowledged; never torn. Retrying may help if the cause is transient.
 */
public class ResourceAccessException extends LeaseholdException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception.
   *
   * @param message what was attempted
   * @param cause the failure
   */
  public ResourceAccessException(String message, Throwable cause) {
    super(message, cause);
  }
}
