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
 * it costs no round trip. Bounded: a call whose outcome never came (its caller failed in between)
 * is forgotten once {@link #LIMIT} newer calls are pending, and a forgotten or unknown call (one
 * another journal object started) has its outcome recorded by call id alone, which is still right,
 * only wider on Citus.
 *
 * <p>Thread-safe.
 */
final class StartedCallKeys {
  /** The most calls remembered: far more than a process has in flight. */
  static final int LIMIT = 10_000;

  private final Map<UUID, LeaseKey> keys =
      new LinkedHashMap<>() {
        @Override
        protected boolean removeEldestEntry(Map.Entry<UUID, LeaseKey> eldest) {
          return size() > LIMIT;
        }
      };

  /** Remembers the key of a call that started (its start committed). */
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
