package io.leasehold.lease.watch;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.fencing.LeaseKey;
import io.leasehold.lease.AccessPolicy;
import io.leasehold.lease.AcquireResult;
import io.leasehold.lease.Lease;
import io.leasehold.lease.LeaseEvent;
import io.leasehold.lease.LeaseOwner;
import io.leasehold.lease.LeaseStatus;
import io.leasehold.lease.LeaseStore;
import io.leasehold.lease.LeaseWatcher;
import io.leasehold.lease.StoreInternals;
import io.leasehold.lease.support.LeaseDatabase;
import io.leasehold.lease.support.LockWaits;
import io.leasehold.testing.TestBudgets;
import io.leasehold.testing.TestDataSources;
import io.leasehold.testing.TestDatabaseExtension;
import java.sql.Connection;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Live status over LISTEN/NOTIFY, on real PostgreSQL. */
class LeaseWatcherTest {
  @RegisterExtension static final TestDatabaseExtension db = LeaseDatabase.extension();

  private static final AtomicInteger KEYS = new AtomicInteger();
  private LeaseStore store;
  private LeaseStore other;
  private LeaseWatcher watcher;
  private LeaseKey key;
  private final BlockingQueue<LeaseEvent> events = new LinkedBlockingQueue<>();

  /** The TTL of the watched leases: 800 ms on one PostgreSQL, sized for the server. */
  private static final Duration TTL = TestBudgets.scaled(Duration.ofMillis(800));

  /** A store on the test database that publishes its changes, with leases of {@link #TTL}. */
  private static LeaseStore notifyingStore() {
    return LeaseStore.builder(db.dataSource())
        .accessPolicy(AccessPolicy.allowAll())
        .ttl(TTL)
        .notifyChanges(true)
        .build();
  }

  @BeforeEach
  void setUp() throws Exception {
    store = notifyingStore();
    other = notifyingStore();
    watcher = LeaseWatcher.start(store, db.dataSource());
    key = LeaseKey.of("acct", "watched-" + KEYS.incrementAndGet());
    watcher.subscribe(key, events::add);
    LeaseEvent first = next(LeaseEvent.Kind.RESYNCED);
    assertThat(first.status().state()).isEqualTo(LeaseStatus.State.FREE);
  }

  @AfterEach
  void tearDown() {
    watcher.close();
    store.close();
    other.close();
  }

  private LeaseEvent next() throws InterruptedException {
    Duration bound = TestBudgets.scaled(Duration.ofSeconds(10));
    LeaseEvent e = events.poll(bound.toMillis(), TimeUnit.MILLISECONDS);
    assertThat(e).as("an event within %s", bound).isNotNull();
    return e;
  }

  /** The next event, which must be of this kind. */
  private LeaseEvent next(LeaseEvent.Kind kind) throws InterruptedException {
    LeaseEvent e = next();
    assertThat(e.kind()).isEqualTo(kind);
    return e;
  }

  private Lease acquire(LeaseStore s) {
    return ((AcquireResult.Acquired) s.tryAcquire(key, "acct")).lease();
  }

  @Test
  void everyKindOfChangeArrivesInCommitOrder() throws Exception {
    Lease first = acquire(store);
    LeaseEvent acquired = next(LeaseEvent.Kind.ACQUIRED);
    assertThat(acquired.status().owner().orElseThrow().runId()).isEqualTo(first.runId());

    first.release();
    LeaseEvent released = next(LeaseEvent.Kind.RELEASED);
    assertThat(released.status().state()).isEqualTo(LeaseStatus.State.FREE);

    Lease second = acquire(store);
    assertThat(next().kind()).isEqualTo(LeaseEvent.Kind.ACQUIRED);
    // Not renewed: the database says nothing; the watcher notices the expiry itself.
    LeaseEvent expired = next(LeaseEvent.Kind.EXPIRED);
    assertThat(expired.status().isHeld()).isFalse();
    assertThat(expired.status().owner().orElseThrow().runId()).isEqualTo(second.runId());

    Lease third = acquire(other);
    LeaseEvent takenOver = next(LeaseEvent.Kind.TAKEN_OVER);
    assertThat(takenOver.status().owner().orElseThrow().fence()).isEqualTo(third.fence());
    assertThat(third.fence()).isGreaterThan(second.fence());
  }

  @Test
  void aStoreTakingOverItsOwnExpiredLeaseSaysTakenOver() throws Exception {
    // The store was granted the key and never found it taken, so it sends the acquire's update
    // alone for it; that answer, too, must tell a takeover from an acquire.
    Lease first = acquire(store);
    assertThat(next().kind()).isEqualTo(LeaseEvent.Kind.ACQUIRED);
    assertThat(next(LeaseEvent.Kind.EXPIRED).status().owner().orElseThrow().runId())
        .isEqualTo(first.runId());
    Lease again = acquire(store);
    LeaseEvent takenOver = next(LeaseEvent.Kind.TAKEN_OVER);
    assertThat(takenOver.status().owner().orElseThrow().runId()).isEqualTo(again.runId());
    again.release();
    assertThat(next().kind()).isEqualTo(LeaseEvent.Kind.RELEASED);
    Lease third = acquire(store);
    assertThat(next().kind()).as("after a release: acquired").isEqualTo(LeaseEvent.Kind.ACQUIRED);
    assertThat(third.fence()).isGreaterThan(again.fence());
  }

  @Test
  void renewalsAreNoticedAtTheOldDeadline() throws Exception {
    Lease lease = acquire(store);
    assertThat(next().kind()).isEqualTo(LeaseEvent.Kind.ACQUIRED);
    // Renew half-way through the TTL, so the renewed lease outlives the old deadline by about
    // half a TTL.
    long bound = System.nanoTime() + TestBudgets.scaled(Duration.ofSeconds(5)).toNanos();
    while (lease.localTimeLeft().compareTo(TTL.multipliedBy(7).dividedBy(16)) > 0) {
      assertThat(System.nanoTime()).isLessThan(bound);
      Thread.sleep(10);
    }
    assertThat(lease.renew().renewed()).isTrue();
    LeaseEvent renewed = next(LeaseEvent.Kind.RENEWED);
    assertThat(renewed.status().owner().orElseThrow().expiresAt()).isEqualTo(lease.expiresAt());
    assertThat(lease.release().released()).isTrue();
    assertThat(next().kind()).isEqualTo(LeaseEvent.Kind.RELEASED);
  }

  @Test
  void aRefusedOrLockTimedOutAcquirePublishesNothing() throws Exception {
    Lease held = acquire(other);
    assertThat(next().kind()).isEqualTo(LeaseEvent.Kind.ACQUIRED);
    // Refused: the key is held.
    assertThat(store.tryAcquire(key, "acct")).isInstanceOf(AcquireResult.Busy.class);
    held.release();
    assertThat(next().kind()).isEqualTo(LeaseEvent.Kind.RELEASED);
    // Busy after a lock wait: a transaction holds the free row's lock past the lock timeout.
    try (Connection c = LockWaits.lockRow(db, key)) {
      assertThat(store.tryAcquire(key, "acct")).isInstanceOf(AcquireResult.Busy.class);
      c.rollback();
    }
    // Neither attempt was heard of: the next event is this acquire.
    Lease lease = acquire(store);
    LeaseEvent e = next(LeaseEvent.Kind.ACQUIRED);
    assertThat(e.status().owner().orElseThrow().runId()).isEqualTo(lease.runId());
    lease.release();
    assertThat(next().kind()).isEqualTo(LeaseEvent.Kind.RELEASED);
  }

  /**
   * A change commits and its publication fails (the connection broke between the two): the store's
   * publisher then publishes "resync" as soon as it can, and the watcher re-reads the key, long
   * before the lease's expiry would have told it.
   */
  @Test
  void aLostPublicationIsCaughtUpByAResync() throws Exception {
    AtomicBoolean failPublishing = new AtomicBoolean(true);
    try (LeaseStore flaky =
        LeaseStore.builder(
                TestDataSources.failingStatements(
                    db.dataSource(), "pg_notify", failPublishing::get))
            .accessPolicy(AccessPolicy.allowAll())
            .ttl(Duration.ofSeconds(60))
            .notifyChanges(true)
            .build()) {
      Lease lease = ((AcquireResult.Acquired) flaky.tryAcquire(key, "acct")).lease();
      long bound = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (StoreInternals.publishFailures(flaky) < 2) {
        assertThat(System.nanoTime()).as("the publisher tried and retried").isLessThan(bound);
        Thread.sleep(10);
      }
      assertThat(events).as("nothing was published").isEmpty();

      failPublishing.set(false);
      LeaseEvent e = next(LeaseEvent.Kind.RESYNCED);
      assertThat(e.status().owner().orElseThrow().runId()).isEqualTo(lease.runId());
      assertThat(e.status().isHeld()).isTrue();
      assertThat(watcher.malformedNotifications()).isZero();
      lease.release();
      assertThat(next().kind()).isEqualTo(LeaseEvent.Kind.RELEASED);
    }
  }

  /** close() releases the store's leases, publishes those releases, and then stops its thread. */
  @Test
  void closePublishesItsReleasesAndStopsThePublisherThread() throws Exception {
    long before = publisherThreads();
    LeaseStore closing =
        LeaseStore.builder(db.dataSource())
            .accessPolicy(AccessPolicy.allowAll())
            .ttl(Duration.ofSeconds(60))
            .notifyChanges(true)
            .build();
    Lease lease = ((AcquireResult.Acquired) closing.tryAcquire(key, "acct")).lease();
    assertThat(next().kind()).isEqualTo(LeaseEvent.Kind.ACQUIRED);
    assertThat(publisherThreads()).isEqualTo(before + 1);
    closing.close();
    LeaseEvent released = next(LeaseEvent.Kind.RELEASED);
    assertThat(released.status().owner().orElseThrow().runId()).isEqualTo(lease.runId());
    assertThat(publisherThreads()).isEqualTo(before);
  }

  private static long publisherThreads() {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.isAlive() && t.getName().startsWith("leasehold-publisher-"))
        .count();
  }

  @Test
  void afterTheListeningConnectionIsKilledTheWatcherReconnectsAndConverges() throws Exception {
    int pid = StoreInternals.backendPid(watcher);
    assertThat(pid).isPositive();
    db.database().execute("SELECT pg_terminate_backend(" + pid + ")");
    // A change while the watcher may be disconnected: its notification can be lost.
    Lease lease = acquire(store);
    LeaseEvent e = next();
    while (!(e.status().isHeld()
        && e.status().owner().orElseThrow().runId().equals(lease.runId()))) {
      e = next();
    }
    assertThat(e.kind()).isIn(LeaseEvent.Kind.ACQUIRED, LeaseEvent.Kind.RESYNCED);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (StoreInternals.backendPid(watcher) == pid) {
      assertThat(System.nanoTime()).isLessThan(deadline);
      Thread.sleep(20);
    }
    assertThat(watcher.isListening()).isTrue();
    // And it hears changes again on the new connection.
    lease.release();
    LeaseEvent released = next();
    while (released.kind() == LeaseEvent.Kind.RESYNCED && released.status().isHeld()) {
      released = next();
    }
    assertThat(released.status().state()).isEqualTo(LeaseStatus.State.FREE);
  }

  @Test
  void aStoreWithTheDefaultOptionsPublishesNothing() throws Exception {
    try (LeaseStore quiet =
        LeaseStore.builder(db.dataSource()).accessPolicy(AccessPolicy.allowAll()).build()) {
      Lease lease = ((AcquireResult.Acquired) quiet.tryAcquire(key, "acct")).lease();
      lease.release();
      // Nothing was notified; a change by a notifying store is the next event.
      Lease loud = acquire(store);
      assertThat(next(LeaseEvent.Kind.ACQUIRED).status().owner())
          .map(LeaseOwner::runId)
          .contains(loud.runId());
      assertThat(loud.fence()).isGreaterThan(lease.fence());
    }
  }

  @Test
  void subscribeAllHearsEveryKey() throws Exception {
    BlockingQueue<LeaseEvent> everything = new LinkedBlockingQueue<>();
    watcher.subscribeAll(everything::add);
    LeaseKey another = LeaseKey.of("acct", key.sessionId() + "-another");
    Lease lease = ((AcquireResult.Acquired) store.tryAcquire(another, "acct")).lease();
    // Every key means every key: a change an earlier test's store publishes late may come first.
    LeaseEvent e = everything.poll(10, TimeUnit.SECONDS);
    while (e != null && !e.status().key().equals(another)) {
      e = everything.poll(10, TimeUnit.SECONDS);
    }
    assertThat(e).as("an event for %s", another).isNotNull();
    assertThat(e.kind()).isEqualTo(LeaseEvent.Kind.ACQUIRED);
    lease.release();
  }

  /**
   * Issue 13: a malformed NOTIFY sent by any database user dropped the valid notifications of the
   * same batch. Malformed payloads and a valid acquire commit in one transaction, so PostgreSQL
   * delivers them together.
   */
  @Test
  void malformedNotificationsAreSkippedOneByOneAndCounted() throws Exception {
    try (java.sql.Connection c = db.dataSource().getConnection();
        java.sql.Statement st = c.createStatement()) {
      c.setAutoCommit(false);
      st.execute("NOTIFY leasehold_lease, 'garbage'");
      st.execute("NOTIFY leasehold_lease, 'acquired zz zz 1'");
      st.execute("NOTIFY leasehold_lease, 'exploded 61 62 1'");
      st.execute("NOTIFY leasehold_lease, 'acquired 61 62 not-a-fence'");
      c.commit();
    }
    Lease lease = acquire(store);
    LeaseEvent acquired = next(LeaseEvent.Kind.ACQUIRED);
    assertThat(acquired.status().owner().orElseThrow().runId()).isEqualTo(lease.runId());
    assertThat(watcher.malformedNotifications()).isEqualTo(4);
    lease.release();
  }
}
