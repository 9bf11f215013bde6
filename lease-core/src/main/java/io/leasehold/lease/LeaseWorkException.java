package io.leasehold.lease;

import io.leasehold.fencing.LeaseholdException;

/**
 * The work passed to {@link LeaseStore#runExclusive} threw a checked exception while its lease was
 * still held; the cause is that exception. The lease was released. Whether retrying helps depends
 * on the cause.
 */
public class LeaseWorkException extends LeaseholdException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception.
   *
   * @param cause what the work threw
   */
  public LeaseWorkException(Exception cause) {
    super("leased work failed: " + cause, cause);
  }
}
