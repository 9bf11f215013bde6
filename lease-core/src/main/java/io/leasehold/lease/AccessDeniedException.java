package io.leasehold.lease;

import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.LeaseholdException;

/**
 * The application's {@link AccessPolicy} refused the caller for this session. Raised before the
 * lease table is touched. Not worth retrying.
 */
public class AccessDeniedException extends LeaseholdException {
  private static final long serialVersionUID = 1L;

  private final String caller;
  private final transient LeaseKey key;

  /**
   * Creates the exception.
   *
   * @param caller the caller the policy refused
   * @param key the session the caller asked for
   */
  public AccessDeniedException(String caller, LeaseKey key) {
    this(caller, key, "run session " + key);
  }

  /**
   * Creates the exception for an operation.
   *
   * @param caller the refused caller
   * @param key the session, or null for an operation on the whole store
   * @param what what the caller asked to do, for the message
   */
  public AccessDeniedException(String caller, LeaseKey key, String what) {
    super(
        "caller '"
            + caller
            + "' may not "
            + what
            + " (refused by the store's AccessPolicy; nothing changed)");
    this.caller = caller;
    this.key = key;
  }

  /**
   * The refused caller.
   *
   * @return the caller
   */
  public String caller() {
    return caller;
  }

  /**
   * The session asked for.
   *
   * @return the key
   */
  public LeaseKey key() {
    return key;
  }
}
