package io.leasehold.lease;

import io.leasehold.fencing.LeaseKey;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Which acquire a key gets ({@link AcquireStatements}), from what this store saw of it before: the
 * update alone ({@link AcquireStatements#grantIfFree}) for a key it has been granted and never
 * found taken since, a read of the key's row first ({@link ReadStatements#statusIfRow}) for a key
 * it found taken, and the full acquire, which also answers a refusal with the holder's row, for a
 * key it has not met yet.
 *
 * <p>The full acquire answers either way in one round trip, but its plan is started whole on every
 * acquire: an acquire and release cost the server a quarter more instructions than with the update
 * alone, and a refusal 2.7 times as many as the read alone (docs/performance.md, "Instructions per
 * attempt"). So a key this store keeps getting gets the update alone (a refusal by it costs a
 * second round trip, the full acquire), and a key it keeps finding taken gets the read, which
 * answers Busy with the holder's row in one round trip while the key is held (CONTRACT C18); only a
 * key the read finds free goes on to the full acquire, one more round trip. The full acquire's
 * answer then moves the key: refused, it stays with the read; granted twice in a row after the
 * read, it gets the update alone again (once is what a contended key does all the time: its holder
 * lets it go, and the store wins it once). The choice never changes who is granted: every grant
 * comes from an update under the same condition with the same fence rule, and a key answered Busy
 * by the read was held or draining in the read's snapshot, a moment inside the call.
 *
 * <p>A Citus coordinator gets the read and the full acquire, never the update alone, which has no
 * Citus form; there the read also spares a refusal the fence that the full acquire's Citus form
 * draws on every call.
 *
 * <p>The map is bounded: when it reaches its capacity it is emptied and filled again from the keys
 * acquired after that, so a store that serves more keys than that only loses some of the saving.
 * Thread-safe.
 */
final class AcquireForms {
  /** Keys remembered; an entry holds the caller's key (at most two 128-character strings). */
  static final int CAPACITY = 4096;

  /** What an acquire of a key sends first. */
  enum Form {
    /** The full acquire: a key this store has not met yet. */
    FULL,
    /** The update alone: a key granted here and not found taken since. */
    UPDATE_ALONE,
    /** The key's row, then the full acquire if the row shows it free: a key found taken. */
    READ_FIRST
  }

  /** What the store saw of a key last. */
  private enum Seen {
    GRANTED,
    TAKEN,
    /** Found taken, and then granted once after the read found it free. */
    GRANTED_AFTER_TAKEN
  }

  private final ConcurrentHashMap<LeaseKey, Seen> seen = new ConcurrentHashMap<>();

  private final int capacity;

  AcquireForms(int capacity) {
    this.capacity = capacity;
  }

  /** What the key's acquire sends first. */
  Form formOf(LeaseKey key) {
    Seen last = seen.get(key);
    if (last == null) {
      return Form.FULL;
    }
    return last == Seen.GRANTED ? Form.UPDATE_ALONE : Form.READ_FIRST;
  }

  /** The key was granted by the full acquire or the first-acquire insert. */
  void granted(LeaseKey key) {
    if (seen.get(key) != Seen.GRANTED) {
      makeRoom();
      seen.compute(key, (k, last) -> last == Seen.TAKEN ? Seen.GRANTED_AFTER_TAKEN : Seen.GRANTED);
    }
  }

  /** The key was found taken: its row is read first from now on. */
  void taken(LeaseKey key) {
    if (seen.get(key) != Seen.TAKEN) {
      makeRoom();
      seen.put(key, Seen.TAKEN);
    }
  }

  /** How many keys are remembered now. */
  int size() {
    return seen.size();
  }

  private void makeRoom() {
    if (seen.size() >= capacity) {
      seen.clear();
    }
  }
}
