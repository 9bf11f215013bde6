package io.leasehold.lease;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Every lease a store handed out and that has not ended yet: close() ends them all, kept or not.
 * Handles their runs dropped without releasing are forgotten once their local deadline passed (they
 * are lost then, and expire in the database by themselves), so the set stays as large as the leases
 * really held. Thread-safe.
 */
final class HandedOutLeases {
  /** Additions between two walks over the handles for ones their runs dropped. */
  private static final int PRUNE_EVERY = 1024;

  private final Set<Lease> live = ConcurrentHashMap.newKeySet();
  private final AtomicInteger addedSincePrune = new AtomicInteger();

  /** A lease handed out; every so often, also forgets the dropped ones. */
  void add(Lease lease) {
    live.add(lease);
    if (addedSincePrune.incrementAndGet() < PRUNE_EVERY) {
      return;
    }
    addedSincePrune.set(0);
    for (Lease l : live) {
      l.checkDeadline();
    }
  }

  /** The lease ended: it is no longer live. */
  void forget(Lease lease) {
    live.remove(lease);
  }

  /** Every live handle, for close(), which then ends them; the set is emptied. */
  Set<Lease> drain() {
    Set<Lease> out = Set.copyOf(live);
    live.clear();
    return out;
  }
}
