package io.leasehold.lease;

import io.leasehold.fencing.LeaseKey;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Which of the two acquire texts a key gets on one PostgreSQL ({@link AcquireStatements}): the
 * update alone ({@link AcquireStatements#grantIfFree}) for a key this store has been granted and
 * never found taken, the full acquire, which also answers a refusal with the holder's row, for
 * every other key.
 *
 * <p>With the full acquire an acquire and release cost the server a quarter more instructions than
 * with the update alone (the holder's part of its plan is started even when it is not run), but it
 * answers a refusal in one round trip; the update alone answers a refusal with nothing, and the
 * full acquire then has to be sent after it. So a key that some other run has held, even once,
 * keeps the full acquire, and a key this store has not met yet (a new session, most often) gets it
 * too. The choice never changes an answer: both texts grant under the same condition with the same
 * fence rule, and a key the update alone did not grant goes on to the full acquire at once.
 *
 * <p>The map is bounded: when it reaches its capacity it is emptied and filled again from the keys
 * acquired after that, so a store that serves more keys than that only loses some of the saving.
 * Thread-safe.
 */
final class AcquireForms {
  /** Keys remembered; an entry holds the caller's key (at most two 128-character strings). */
  static final int CAPACITY = 4096;

  /** Per key: true once the key was found taken, false while it has only been granted. */
  private final ConcurrentHashMap<LeaseKey, Boolean> seenTaken = new ConcurrentHashMap<>();

  private final int capacity;

  AcquireForms(int capacity) {
    this.capacity = capacity;
  }

  /** Whether the key gets the update alone: it was granted here and never found taken. */
  boolean updateAlone(LeaseKey key) {
    return Boolean.FALSE.equals(seenTaken.get(key));
  }

  /** The key was granted by the full acquire or the first-acquire insert. */
  void granted(LeaseKey key) {
    if (!seenTaken.containsKey(key)) {
      makeRoom();
      seenTaken.putIfAbsent(key, Boolean.FALSE);
    }
  }

  /** The key was found taken: it keeps the full acquire from now on. */
  void taken(LeaseKey key) {
    if (!Boolean.TRUE.equals(seenTaken.get(key))) {
      makeRoom();
      seenTaken.put(key, Boolean.TRUE);
    }
  }

  /** How many keys are remembered now. */
  int size() {
    return seenTaken.size();
  }

  private void makeRoom() {
    if (seenTaken.size() >= capacity) {
      seenTaken.clear();
    }
  }
}
