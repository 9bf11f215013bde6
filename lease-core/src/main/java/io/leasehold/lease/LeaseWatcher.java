package io.leasehold.lease;

import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.internal.Arguments;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import javax.sql.DataSource;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * Live lease status for front ends: subscribers hear of every acquire, takeover and release, with
 * the authoritative status, over one dedicated connection per watcher (not one per key).
 *
 * <pre>{@code
 * try (LeaseWatcher watcher = LeaseWatcher.start(store, listenDataSource)) {
 *   watcher.subscribe(key, event -> pushToBrowsers(event.status()));
 *   ...
 * }
 * }</pre>
 *
 * <h2>How it hears</h2>
 *
 * A store built with {@link LeaseStoreBuilder#notifyChanges(boolean) notifyChanges(true)} publishes
 * each acquire, takeover and release once it has committed, with {@code pg_notify} in a short
 * transaction of its own, so a change that rolled back is never heard of. Stores publish nothing by
 * default: build the stores whose leases are watched with it on; the changes of other stores reach
 * subscribers only as expiry, renewal or resync events. The watcher's thread ({@code
 * leasehold-watcher}) holds one connection that {@code LISTEN}s on the channel, reads the status of
 * each notified key through the store (so an event always carries the status as the database has it
 * when the event is delivered), and calls the key's subscribers in the order the notifications
 * arrive: one thread's changes in the order it made them; changes made on different connections at
 * nearly the same time may arrive in either order.
 *
 * <h2>What the database does not say</h2>
 *
 * <ul>
 *   <li><b>Expiry</b> is not an event: nothing happens in the database when a lease runs out. For
 *       every held key it knows of, the watcher keeps a deadline at the lease's {@code expires_at}
 *       (converted to local time through the status's database time), re-reads the status when it
 *       passes, and reports {@link LeaseEvent.Kind#EXPIRED} (or {@link LeaseEvent.Kind#RENEWED} if
 *       the holder had renewed meanwhile: renewals are not notified).
 *   <li><b>Notifications sent while the connection is down are lost.</b> When the listening
 *       connection drops, the watcher reconnects with a growing pause (up to 2 s), listens again,
 *       re-reads the status of every key it follows and reports each as {@link
 *       LeaseEvent.Kind#RESYNCED}, so subscribers converge to the truth.
 *   <li><b>A store that could not publish</b> (its database or connection failed after the change
 *       committed) starts its next publication with {@code resync}: the watcher then re-reads every
 *       key it follows, as after a reconnect, and wakes every waiting acquire.
 *   <li><b>A process that dies between a change's commit and its publication</b> never publishes
 *       it. Its leases stop renewing, so a missed release is found at the lease's old deadline (as
 *       a process that dies holding a lease would be), and a missed acquire ends by expiry.
 * </ul>
 *
 * <p>Subscribers run on the watcher's thread: keep them quick; an exception they throw is logged
 * and ignored. The listening connection occupies one connection of {@code listenSource} for the
 * watcher's lifetime; give it an unpooled source or count it in the pool size. Thread-safe.
 */
public final class LeaseWatcher implements AutoCloseable {
  private static final System.Logger LOG = System.getLogger(LeaseWatcher.class.getName());
  private static final long POLL_MILLIS = 250;

  private final LeaseStore store;
  private final Ticker ticker;
  private final java.util.concurrent.atomic.AtomicLong malformed =
      new java.util.concurrent.atomic.AtomicLong();
  private final DataSource listenSource;
  private final String channel;
  private final Map<LeaseKey, List<Consumer<LeaseEvent>>> byKey = new ConcurrentHashMap<>();
  private final List<Consumer<LeaseEvent>> all = new CopyOnWriteArrayList<>();

  /** Local deadlines (by the store's ticker) at which a held key's lease would expire. */
  private final Map<LeaseKey, Long> deadlines = new ConcurrentHashMap<>();

  /** Keys with a new subscriber that still needs its first status. */
  private final Set<LeaseKey> pendingFirstStatus = ConcurrentHashMap.newKeySet();

  private final Thread thread;
  private volatile boolean closed;
  private volatile Connection connection;
  private volatile int backendPid;

  private LeaseWatcher(LeaseStore store, DataSource listenSource) {
    this.store = store;
    this.ticker = store.ticker();
    this.listenSource = listenSource;
    this.channel = store.schema().table();
    this.thread = new Thread(this::loop, "leasehold-watcher-" + channel);
    thread.setDaemon(true);
  }

  /**
   * Starts a watcher and its thread.
   *
   * @param store the store whose table is watched (and through which statuses are read)
   * @param listenSource where the listening connection comes from (a PostgreSQL data source)
   * @return the running watcher; close it to stop
   */
  public static LeaseWatcher start(LeaseStore store, DataSource listenSource) {
    if (store == null || listenSource == null) {
      throw new IllegalArgumentException("store and listenSource must not be null");
    }
    LeaseWatcher w = new LeaseWatcher(store, listenSource);
    w.thread.start();
    return w;
  }

  /**
   * Subscribes to one key. The subscriber first receives a {@link LeaseEvent.Kind#RESYNCED} event
   * with the current status, then every change.
   *
   * @param key the key
   * @param subscriber called on the watcher's thread
   * @return the subscription; close it to unsubscribe
   */
  public Subscription subscribe(LeaseKey key, Consumer<LeaseEvent> subscriber) {
    if (key == null || subscriber == null) {
      throw new IllegalArgumentException("key and subscriber must not be null");
    }
    ensureOpen();
    byKey.computeIfAbsent(key, k -> new CopyOnWriteArrayList<>()).add(subscriber);
    wake(key);
    return () -> {
      List<Consumer<LeaseEvent>> list = byKey.get(key);
      if (list != null) {
        list.remove(subscriber);
      }
    };
  }

  /**
   * Subscribes to every key of the table.
   *
   * @param subscriber called on the watcher's thread
   * @return the subscription; close it to unsubscribe
   */
  public Subscription subscribeAll(Consumer<LeaseEvent> subscriber) {
    Arguments.required(subscriber, "subscriber");
    ensureOpen();
    all.add(subscriber);
    return () -> all.remove(subscriber);
  }

  /** An active subscription. */
  @FunctionalInterface
  public interface Subscription extends AutoCloseable {
    /** Stops the subscriber receiving events; idempotent. */
    @Override
    void close();
  }

  /**
   * How many notifications on the channel were malformed and skipped (any database user can NOTIFY
   * the channel).
   *
   * @return the count
   */
  public long malformedNotifications() {
    return malformed.get();
  }

  /**
   * Whether the listening connection is up now.
   *
   * @return true when listening
   */
  public boolean isListening() {
    return connection != null;
  }

  /** Stops the thread and closes the listening connection; idempotent. */
  @Override
  public void close() {
    closed = true;
    thread.interrupt();
    try {
      thread.join(5_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    Connection c = connection;
    if (c != null && !thread.isAlive() && unlisten(c)) {
      // An orderly stop: the connection is healthy and listens no more, so it goes back to its
      // pool like any other. (Aborting it made HikariCP log a broken connection at every stop.)
      connection = null;
      try {
        c.close();
      } catch (SQLException e) {
        LOG.log(Level.DEBUG, () -> "closing the listening connection: " + e);
      }
      return;
    }
    closeConnection();
  }

  /**
   * Ends every LISTEN of the connection and drops the notifications it had already received, so the
   * pool's next user of the connection (another watcher, say) is not handed this watcher's
   * leftovers; false if it cannot (the connection is then aborted instead).
   */
  private static boolean unlisten(Connection c) {
    try (Statement s = c.createStatement()) {
      s.execute("UNLISTEN *");
      c.unwrap(PGConnection.class).getNotifications(); // no wait: only what arrived before UNLISTEN
      return true;
    } catch (SQLException | RuntimeException e) {
      LOG.log(Level.DEBUG, () -> "UNLISTEN on the listening connection: " + e);
      return false;
    }
  }

  // ------------------------------------------------------------------ the watcher's thread

  private void wake(LeaseKey key) {
    pendingFirstStatus.add(key);
  }

  private void loop() {
    long backoff = 50;
    boolean wasConnected = false;
    while (!closed) {
      try {
        if (connection == null) {
          connect();
          if (wasConnected) {
            resync();
          }
          wasConnected = true;
          backoff = 50;
        }
        for (LeaseKey key : pendingFirstStatus) {
          pendingFirstStatus.remove(key);
          emitStatus(key, LeaseEvent.Kind.RESYNCED, true);
        }
        PGNotification[] notes =
            connection.unwrap(PGConnection.class).getNotifications((int) nextWaitMillis());
        if (notes != null) {
          boolean resync = false;
          for (PGNotification n : notes) {
            if (ChangePublisher.RESYNC.equals(n.getParameter())) {
              // Some store could not publish: its lost changes are found by reading every key
              // followed, once per batch however many stores said so (anyone may send it).
              resync = true;
              continue;
            }
            // Any database user can NOTIFY this channel: a malformed payload is skipped and
            // counted on its own, never allowed to drop the valid ones beside it.
            try {
              handle(n.getParameter());
            } catch (IllegalArgumentException e) {
              malformed.incrementAndGet();
              LOG.log(
                  Level.WARNING, () -> "ignoring malformed lease notification: " + e.getMessage());
            }
          }
          if (resync) {
            store.allKeysMayHaveEnded();
            resync();
          }
        }
        checkDeadlines();
      } catch (SQLException | LeaseStoreException e) {
        if (closed) {
          break;
        }
        LOG.log(Level.DEBUG, () -> "lease watcher lost its connection: " + e);
        closeConnection();
        sleep(backoff);
        backoff = Math.min(2_000, backoff * 2);
      } catch (RuntimeException e) {
        LOG.log(Level.WARNING, "lease watcher failed; continuing", e);
        sleep(backoff);
      }
    }
  }

  private void connect() throws SQLException {
    Connection c = listenSource.getConnection();
    try {
      c.setAutoCommit(true);
      try (Statement s = c.createStatement()) {
        s.execute("LISTEN " + channel);
      }
      backendPid = c.unwrap(PGConnection.class).getBackendPID();
    } catch (SQLException e) {
      c.close();
      throw e;
    }
    connection = c;
  }

  private void resync() {
    List<LeaseKey> keys = new ArrayList<>(byKey.keySet());
    for (LeaseKey k : deadlines.keySet()) {
      if (!keys.contains(k)) {
        keys.add(k);
      }
    }
    for (LeaseKey key : keys) {
      emitStatus(key, LeaseEvent.Kind.RESYNCED, false);
    }
  }

  /** One change's notification ({@link ChangePublisher#payload}). */
  private void handle(String payload) {
    String shown = payload == null ? "null" : payload.substring(0, Math.min(payload.length(), 200));
    String[] p = payload == null ? new String[0] : payload.split(" ", -1);
    if (p.length != 4) {
      throw new IllegalArgumentException(
          "expected '<event> <account hex> <session hex> <fence>': " + shown);
    }
    LeaseEvent.Kind kind =
        switch (p[0]) {
          case "acquired" -> LeaseEvent.Kind.ACQUIRED;
          case "taken_over" -> LeaseEvent.Kind.TAKEN_OVER;
          case "released" -> LeaseEvent.Kind.RELEASED;
          default -> throw new IllegalArgumentException("unknown event: " + shown);
        };
    try {
      Long.parseLong(p[3]);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("fence is not a number: " + shown, e);
    }
    HexFormat hex = HexFormat.of();
    LeaseKey key =
        LeaseKey.of(
            new String(hex.parseHex(p[1]), StandardCharsets.UTF_8),
            new String(hex.parseHex(p[2]), StandardCharsets.UTF_8));
    if (kind == LeaseEvent.Kind.RELEASED) {
      store.keyEnded(key); // whoever waits in acquire(request, maxWait) tries now
    }
    if (byKey.containsKey(key) || !all.isEmpty()) {
      emitStatus(key, kind, false);
    }
  }

  private void checkDeadlines() {
    long now = ticker.read();
    for (Map.Entry<LeaseKey, Long> e : deadlines.entrySet()) {
      if (now - e.getValue() >= 0) {
        deadlines.remove(e.getKey(), e.getValue());
        LeaseStatus s = store.statusUnchecked(e.getKey());
        if (!s.isHeld()) {
          store.keyEnded(e.getKey());
        }
        emit(s.isHeld() ? LeaseEvent.Kind.RENEWED : LeaseEvent.Kind.EXPIRED, s, false);
      }
    }
  }

  private long nextWaitMillis() {
    long now = ticker.read();
    long wait = POLL_MILLIS;
    for (long d : deadlines.values()) {
      wait = Math.min(wait, Math.max(1, (d - now) / 1_000_000 + 1));
    }
    return Math.max(1, wait);
  }

  private void emitStatus(LeaseKey key, LeaseEvent.Kind kind, boolean onlyKeySubscribers) {
    emit(kind, store.statusUnchecked(key), onlyKeySubscribers);
  }

  private void emit(LeaseEvent.Kind kind, LeaseStatus status, boolean onlyKeySubscribers) {
    LeaseKey key = status.key();
    if (status.isHeld()) {
      // The lease's end, by the database clock, as a local deadline (a few ms late on purpose).
      Duration left =
          Duration.between(status.databaseNow(), status.owner().orElseThrow().expiresAt());
      deadlines.put(key, ticker.read() + left.toNanos() + 5_000_000);
    } else {
      deadlines.remove(key);
    }
    LeaseEvent event = new LeaseEvent(kind, status);
    List<Consumer<LeaseEvent>> subs = byKey.get(key);
    if (subs != null) {
      subs.forEach(s -> deliver(s, event));
    }
    if (!onlyKeySubscribers) {
      all.forEach(s -> deliver(s, event));
    }
  }

  private static void deliver(Consumer<LeaseEvent> subscriber, LeaseEvent event) {
    try {
      subscriber.accept(event);
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "lease event subscriber failed", e);
    }
  }

  private void closeConnection() {
    Connection c = connection;
    connection = null;
    if (c != null) {
      try {
        // Abort rather than only close: a pool must not hand the dead connection to anyone.
        c.abort(Runnable::run);
      } catch (SQLException | RuntimeException e) {
        LOG.log(Level.DEBUG, () -> "aborting the listening connection: " + e);
      }
      try {
        c.close();
      } catch (SQLException e) {
        LOG.log(Level.DEBUG, () -> "closing the listening connection: " + e);
      }
    }
  }

  private void ensureOpen() {
    if (closed) {
      throw new IllegalStateException("the lease watcher is closed");
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  int backendPid() {
    return backendPid;
  }
}
