package io.leasehold.lease;

import io.leasehold.fencing.LeaseKey;

/**
 * The application's decision whether an already authenticated caller may use a session
 * (CONTRACT C8). The lease store asks it before every acquire and never touches the lease table
 * for a refused caller. The lease only arbitrates between executions that are already allowed:
 * Leasehold does not authenticate anyone.
 *
 * <p>Implementations must be thread-safe and quick; an exception they throw propagates to the
 * caller of acquire.
 */
@FunctionalInterface
public interface AccessPolicy {
  /**
   * Whether {@code caller} may run {@code key}.
   *
   * @param caller the authenticated principal, as the application names it
   * @param key the session asked for
   * @return true to let the acquire proceed
   */
  boolean permits(String caller, LeaseKey key);

  /**
   * A policy that lets every caller through, for applications that check access before they
   * reach the store (say so explicitly by choosing it).
   *
   * @return the policy
   */
  static AccessPolicy allowAll() {
    return (caller, key) -> true;
  }

  /**
   * A policy that lets a caller run only sessions of the account with the caller's own name.
   *
   * @return the policy
   */
  static AccessPolicy callerOwnsAccount() {
    return (caller, key) -> key.accountId().equals(caller);
  }
}
