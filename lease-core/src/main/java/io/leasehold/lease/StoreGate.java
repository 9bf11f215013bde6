package io.leasehold.lease;

import io.leasehold.fencing.LeaseKey;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The two checks every operation of a store makes on a caller's behalf, in this order: the store is
 * open, then its {@link AccessPolicy} lets the caller do the operation. Shared by {@link
 * LeaseStore}, {@link LeaseAdmin} and the leases' own operations, so a refusal reads the same
 * wherever it comes from.
 *
 * @param policy the store's access policy
 * @param closed set once by {@link LeaseStore#close()}
 */
record StoreGate(AccessPolicy policy, AtomicBoolean closed) {

  /**
   * @throws IllegalStateException if the store is closed
   */
  void ensureOpen() {
    if (closed.get()) {
      throw new IllegalStateException("the lease store is closed");
    }
  }

  /**
   * @param key the session, or null for an operation on the whole store
   * @param what what the caller asked to do, for the refusal's message
   * @throws AccessDeniedException if the policy refuses the caller
   */
  void authorize(String caller, LeaseKey key, AccessPolicy.Operation operation, String what) {
    if (!policy.permits(caller, key, operation)) {
      throw new AccessDeniedException(caller, key, what);
    }
  }
}
