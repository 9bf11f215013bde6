package io.leasehold.lease;

/**
 * A change of a lease key, as a {@link LeaseWatcher} subscriber hears of it, with the authoritative
 * status read after the change.
 *
 * @param kind what happened
 * @param status the key's status, read from the database after the change was heard of (it may
 *     already reflect a later change, whose own event follows)
 */
public record LeaseEvent(Kind kind, LeaseStatus status) {
  /** Kinds of change. */
  public enum Kind {
    /** A run acquired a free key (never held, or released). Notified by the database. */
    ACQUIRED,
    /** A run took over a key whose lease had expired. Notified by the database. */
    TAKEN_OVER,
    /** The holder released the key. Notified by the database. */
    RELEASED,
    /**
     * The lease ran out without a release. The database emits nothing for this: the watcher noticed
     * when the expiry it knew of passed and it re-read the status.
     */
    EXPIRED,
    /** The holder renewed; noticed the same way as an expiry (renewals are not notified). */
    RENEWED,
    /**
     * The watcher reconnected after losing its connection and re-read the status: changes made
     * while it was disconnected were not heard of, this event carries where they led.
     */
    RESYNCED
  }

  /**
   * Checks the components.
   *
   * @throws IllegalArgumentException if a component is null
   */
  public LeaseEvent {
    if (kind == null || status == null) {
      throw new IllegalArgumentException("kind and status must not be null");
    }
  }
}
