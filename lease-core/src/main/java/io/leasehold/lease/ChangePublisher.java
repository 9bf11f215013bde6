package io.leasehold.lease;

import io.leasehold.fencing.LeaseKey;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Publishes a publishing store's committed changes to {@link LeaseWatcher}s, after the change's own
 * commit, from one thread per store ({@code leasehold-publisher-<table>}, started at the store's
 * first change, stopped by {@link LeaseStore#close()}) that sends what is queued in one short
 * transaction ({@link #statement}).
 *
 * <p>Why not from the changing statement, as before: PostgreSQL serializes the commits of all
 * notifying transactions of a server behind one lock, held through each commit's WAL flush, so
 * every publishing store's acquires and releases queued behind each other. Now only the publisher's
 * transaction takes that lock, once per batch, and it does not wait for its flush. A caller only
 * queues its payload; one thread's changes are published in the order it made them.
 *
 * <p>What this gives up, and how listeners still converge:
 *
 * <ul>
 *   <li>A process that dies between a change's commit and its publication never publishes it. Its
 *       leases then stop renewing: a watcher that missed a release re-reads the key at the lease's
 *       old deadline, a waiting acquire retries at its poll ceiling, and a missed acquire of the
 *       dead process ends by expiry. That is the same bound as a process that dies holding a lease,
 *       which is the common way to die.
 *   <li>A batch that cannot be sent (the database or the connection failed), or changes beyond
 *       {@link #MAX_QUEUED} while the database is slow, are dropped: the thread then keeps trying,
 *       with a growing pause, to publish {@link #RESYNC}, on which every watcher re-reads all the
 *       keys it follows and wakes every waiting acquire.
 * </ul>
 *
 * <p>Payload: {@code "<event> <account id, hex> <session id, hex> <fence>"}, or {@code "resync"}.
 * Renewals are never published (100,000 held leases would mean 100,000 notifications per renewal
 * interval). Thread-safe.
 */
final class ChangePublisher implements AutoCloseable {
  /** The payload that tells watchers some notifications of this channel were lost. */
  static final String RESYNC = "resync";

  /** Payloads queued at most; beyond, changes are dropped for one resync. */
  static final int MAX_QUEUED = 10_000;

  /** Payloads per statement at most (a notification is up to ~2 kB; the array stays small). */
  private static final int MAX_BATCH = 500;

  private static final System.Logger LOG = System.getLogger(ChangePublisher.class.getName());
  private static final HexFormat HEX = HexFormat.of();
  private static final long MIN_PAUSE_MILLIS = 50;
  private static final long MAX_PAUSE_MILLIS = 2_000;

  private final StatementRunner runner;
  private final String statement;
  private final String threadName;
  private final Duration closeWait;
  private final Object lock = new Object();

  /** Guarded by lock. */
  private final ArrayList<String> queued = new ArrayList<>();

  /** Guarded by lock: whether changes were dropped and watchers must be told to resync. */
  private boolean lost;

  /** Guarded by lock. */
  private boolean closed;

  /** Guarded by lock: null until the first change. */
  private Thread thread;

  private final AtomicLong failures = new AtomicLong();

  /**
   * @param closeWait how long {@link #close} waits for what is queued to be sent (the store's
   *     statement timeout and a little)
   */
  ChangePublisher(StatementRunner runner, StatementSettings settings, Duration closeWait) {
    this.runner = runner;
    this.statement = statement(settings);
    this.threadName = "leasehold-publisher-" + settings.schema().table();
    this.closeWait = closeWait;
  }

  /**
   * The notifications of committed changes: one {@code pg_notify} per element of the array
   * parameter, in its order, in a transaction of its own, after the change committed. Its commit
   * need not wait for a WAL flush: a notification is not durable anyway (a server crash drops the
   * listeners, and they resync), and not waiting keeps the server-wide notify lock, taken at
   * commit, held for microseconds instead of a flush. Returns a row per notification.
   */
  static String statement(StatementSettings settings) {
    return settings.opening()
        + "SELECT set_config('synchronous_commit', 'off', true), pg_notify('"
        + settings.schema().table()
        + "', p)"
        + " FROM unnest(?::text[]) AS p";
  }

  /** The event names of the payload, as {@link LeaseWatcher} reads them. */
  enum Event {
    ACQUIRED("acquired"),
    TAKEN_OVER("taken_over"),
    RELEASED("released");

    final String wire;

    Event(String wire) {
      this.wire = wire;
    }
  }

  /** Queues one committed change for publication; never blocks on the database, never throws. */
  void publish(Event event, LeaseKey key, long fence) {
    String payload = payload(event, key, fence);
    synchronized (lock) {
      if (closed) {
        // A release by close() itself comes before this; a later one is a race with close():
        // nobody will send it, so watchers re-read when they next hear from any store.
        return;
      }
      if (queued.size() >= MAX_QUEUED) {
        lost = true;
        return;
      }
      queued.add(payload);
      // Started at the first change; started again if an Error ended it.
      if (thread == null || !thread.isAlive()) {
        thread = new Thread(this::run, threadName);
        thread.setDaemon(true);
        thread.start();
      }
      lock.notifyAll();
    }
  }

  /** How many batches could not be sent since the store was built. */
  long failures() {
    return failures.get();
  }

  /** Sends what is queued (waiting at most the close wait), then stops the thread; idempotent. */
  @Override
  public void close() {
    Thread t;
    synchronized (lock) {
      closed = true;
      lock.notifyAll();
      t = thread;
    }
    if (t != null && t != Thread.currentThread()) {
      try {
        t.join(closeWait.toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      t.interrupt();
    }
  }

  private void run() {
    long pause = MIN_PAUSE_MILLIS;
    while (true) {
      List<String> batch = new ArrayList<>();
      synchronized (lock) {
        while (queued.isEmpty() && !lost && !closed) {
          try {
            lock.wait();
          } catch (InterruptedException e) {
            return; // close() gave up waiting
          }
        }
        if (queued.isEmpty() && (closed || !lost)) {
          return;
        }
        if (lost) {
          batch.add(RESYNC);
        }
        int n = Math.min(queued.size(), MAX_BATCH - batch.size());
        List<String> head = queued.subList(0, n);
        batch.addAll(head);
        head.clear();
        lost = false;
      }
      boolean delivered = false;
      try {
        send(batch);
        delivered = true;
        pause = MIN_PAUSE_MILLIS;
      } catch (RuntimeException e) {
        // LeaseStoreException, or whatever the DataSource throws: the changes are committed
        // regardless, and the resync below tells watchers to read them.
        failures.incrementAndGet();
        LOG.log(
            Level.WARNING,
            () ->
                "could not publish "
                    + batch.size()
                    + " lease change(s) to live-status listeners (the"
                    + " changes themselves are committed); retrying with a resync for every watcher: "
                    + e);
      } finally {
        if (!delivered) {
          synchronized (lock) {
            lost = true;
          }
        }
      }
      if (!delivered) {
        if (!sleep(pause)) {
          return;
        }
        pause = Math.min(MAX_PAUSE_MILLIS, pause * 2);
      }
    }
  }

  private void send(List<String> batch) {
    runner.execute(
        statement,
        () -> "publish lease changes",
        (ps, c) -> ps.setArray(1, StatementRunner.array(c, "text", batch.toArray())),
        (rs, opened) -> {
          int rows = 0;
          while (rs.next()) {
            rows++;
          }
          return rows;
        });
  }

  /** Pauses the thread; false if it was interrupted (close() gave up waiting). */
  private boolean sleep(long millis) {
    synchronized (lock) {
      if (closed) {
        return false;
      }
    }
    try {
      Thread.sleep(millis);
      return true;
    } catch (InterruptedException e) {
      return false;
    }
  }

  static String payload(Event event, LeaseKey key, long fence) {
    return event.wire
        + " "
        + HEX.formatHex(key.accountId().getBytes(StandardCharsets.UTF_8))
        + " "
        + HEX.formatHex(key.sessionId().getBytes(StandardCharsets.UTF_8))
        + " "
        + fence;
  }
}
