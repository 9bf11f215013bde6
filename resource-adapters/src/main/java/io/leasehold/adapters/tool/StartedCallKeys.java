package io.leasehold.adapters.tool;

import io.leasehold.fencing.LeaseKey;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;

/**
 * The keys of the calls a {@link JdbcToolJournal} started and has not yet recorded an outcome for,
 * so that the outcome's update can name the key ({@code ToolJournal.finished} and {@code failed}
 * take a call id only). On Citus a statement that names the key goes to the key's shard alone; one
 * that names the call alone goes to every shard (docs/scale-out.md). Memory, not the database, so
 * it costs no round trip. A key is remembered only once the call's start committed, so it is the
 * key of the call's row. Bounded: a call whose outcome never came (its caller failed in between) is
 * forgotten once {@link #LIMIT} newer calls are pending, and a forgotten or unknown call (one
 * another journal object started) has its outcome recorded by call id alone: on one PostgreSQL the
 * call id is the primary key; on Citus it is unique per account only, so that update refuses unless
 * exactly one row has the id ({@code JournalSql#requireCall}), and is never applied to another
 * key's call.
 *
 * <p>Thread-safe.
 */
final class StartedCallKeys {
  /** The most calls remembered: far more than a process has in flight. */
  static final int LIMIT = 10_000;

  private final Map<UUID, LeaseKey> keys;

  StartedCallKeys() {
    this(LIMIT);
  }

  /**
   * @param limit the most calls remembered; the eldest is forgotten first
   */
  StartedCallKeys(int limit) {
    this.keys =
        new LinkedHashMap<>() {
          @Override
          protected boolean removeEldestEntry(Map.Entry<UUID, LeaseKey> eldest) {
            return size() > limit;
          }
        };
  }

  /** Remembers the key of a call whose start committed. */
  synchronized void started(UUID callId, LeaseKey key) {
    keys.put(callId, key);
  }

  /** The key of a started call, or null if unknown. */
  synchronized LeaseKey key(UUID callId) {
    return keys.get(callId);
  }

  /** Forgets a call whose outcome is recorded. */
  synchronized void ended(UUID callId) {
    keys.remove(callId);
  }
}
