package io.leasehold.lease;

import io.leasehold.fencing.LeaseholdException;

/**
 * The database failed or could not be reached. The outcome of the statement is unknown: an acquire
 * may have succeeded (the lease then simply expires), a renew may or may not have extended the
 * lease. Retrying acquire later is safe; a lease whose renewal failed this way is treated as lost.
 * A server that does not answer at all (a stopped or hung backend, on Citus a stopped worker) ends
 * the wait too: after twice the statement timeout plus one second the connection is closed and this
 * exception says "no answer from the database within"; whether that statement committed is unknown,
 * as above. It is also thrown, with no cause and nothing changed, when the store does not fit its
 * schema: a fence sequence that is not the one bound to the lease table (the message names both and
 * the repair).
 */
public class LeaseStoreException extends LeaseholdException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception.
   *
   * @param message what was attempted
   * @param cause the database failure, or null
   */
  public LeaseStoreException(String message, Throwable cause) {
    super(message, cause);
  }
}
