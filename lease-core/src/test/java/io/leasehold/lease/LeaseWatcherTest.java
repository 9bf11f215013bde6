package io.leasehold.lease;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.fencing.LeaseKey;
import io.leasehold.testing.TestDatabaseExtension;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
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

  @BeforeEach
  void setUp() throws Exception {
    store = LeaseStore.builder(db.dataSource()).accessPolicy(AccessPolicy.allowAll()).ttl(Duration.ofMillis(800)).notifyChanges(true).build();
    other = LeaseStore.builder(db.dataSource()).accessPolicy(AccessPolicy.allowAll()).ttl(Duration.ofMillis(800)).notifyChanges(true).build();
    watcher = LeaseWatcher.start(store, db.dataSource());
    key = LeaseKey.of("acct", "watched-" + KEYS.incrementAndGet());
    watcher.subscribe(key, events::add);
    LeaseEvent first = next();
    assertThat(first.kind()).isEqualTo(LeaseEvent.Kind.RESYNCED);
    assertThat(first.status().state()).isEqualTo(LeaseStatus.State.FREE);
  }

  @AfterEach
  void tearDown() {
    watcher.close();
    store.close();
    other.close();
  }

  private LeaseEvent next() throws InterruptedException {
    LeaseEvent e = events.poll(10, TimeUnit.SECONDS);
    assertThat(e).as("an event within 10 s").isNotNull();
    return e;
  }

  private Lease acquire(LeaseStore s) {
    return ((AcquireResult.Acquired) s.tryAcquire(key, "acct")).lease();
  }

  @Test
  void everyKindOfChangeArrivesInCommitOrder() throws Exception {
    Lease first = acquire(store);
    LeaseEvent acquired = next();
    assertThat(acquired.kind()).isEqualTo(LeaseEvent.Kind.ACQUIRED);
    assertThat(acquired.status().owner().orElseThrow().runId()).isEqualTo(first.runId());

    first.release();
    LeaseEvent released = next();
    assertThat(released.kind()).isEqualTo(LeaseEvent.Kind.RELEASED);
    assertThat(released.status().state()).isEqualTo(LeaseStatus.State.FREE);

    Lease second = acquire(store);
    assertThat(next().kind()).isEqualTo(LeaseEvent.Kind.ACQUIRED);
    // Not renewed: the database says nothing; the watcher notices the expiry itself.
    LeaseEvent expired = next();
    assertThat(expired.kind()).isEqualTo(LeaseEvent.Kind.EXPIRED);
    assertThat(expired.status().isHeld()).isFalse();
    assertThat(expired.status().owner().orElseThrow().runId()).isEqualTo(second.runId());

    Lease third = acquire(other);
    LeaseEvent takenOver = next();
    assertThat(takenOver.kind()).isEqualTo(LeaseEvent.Kind.TAKEN_OVER);
    assertThat(takenOver.status().owner().orElseThrow().fence()).isEqualTo(third.fence());
    assertThat(third.fence()).isGreaterThan(second.fence());
  }

  @Test
  void renewalsAreNoticedAtTheOldDeadline() throws Exception {
    Lease lease = acquire(store);
    assertThat(next().kind()).isEqualTo(LeaseEvent.Kind.ACQUIRED);
    // Renew half-way through the TTL, so the renewed lease outlives the old deadline by ~400 ms.
    long bound = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (lease.localTimeLeft().compareTo(Duration.ofMillis(350)) > 0) {
      assertThat(System.nanoTime()).isLessThan(bound);
      Thread.sleep(10);
    }
    assertThat(lease.renew().renewed()).isTrue();
    LeaseEvent renewed = next();
    assertThat(renewed.kind()).isEqualTo(LeaseEvent.Kind.RENEWED);
    assertThat(renewed.status().owner().orElseThrow().expiresAt()).isEqualTo(lease.expiresAt());
    assertThat(lease.release().released()).isTrue();
    assertThat(next().kind()).isEqualTo(LeaseEvent.Kind.RELEASED);
  }

  @Test
  void aRolledBackChangeEmitsNothing() throws Exception {
    // The notifying store's own acquire statement, in a transaction that rolls back: the row
    // changed and pg_notify was called, but nothing may be heard.
    LeaseSql sql = new LeaseSql(LeaseSchema.defaults(), Duration.ofSeconds(1), Duration.ofSeconds(5), true);
    try (Connection c = db.database().newConnection()) {
      c.setAutoCommit(false);
      try (PreparedStatement ps = c.prepareStatement(sql.acquireNew)) {
        LeaseSql.bindAcquireNew(ps, key, UUID.randomUUID(), "rolled back", 60_000_000);
        assertThat(ps.execute()).isTrue();
        assertThat(ps.getMoreResults()).isTrue();
        try (ResultSet rs = ps.getResultSet()) {
          assertThat(rs.next()).as("the rolled-back acquire changed the row").isTrue();
        }
      }
      c.rollback();
    }
    Lease lease = acquire(store);
    LeaseEvent e = next();
    assertThat(e.kind()).isEqualTo(LeaseEvent.Kind.ACQUIRED);
    assertThat(e.status().owner().orElseThrow().runId()).isEqualTo(lease.runId());
    lease.release();
    assertThat(next().kind()).isEqualTo(LeaseEvent.Kind.RELEASED);
  }

  @Test
  void afterTheListeningConnectionIsKilledTheWatcherReconnectsAndConverges() throws Exception {
    int pid = watcher.backendPid();
    assertThat(pid).isPositive();
    db.database().execute("SELECT pg_terminate_backend(" + pid + ")");
    // A change while the watcher may be disconnected: its notification can be lost.
    Lease lease = acquire(store);
    LeaseEvent e = next();
    while (!(e.status().isHeld() && e.status().owner().orElseThrow().runId().equals(lease.runId()))) {
      e = next();
    }
    assertThat(e.kind()).isIn(LeaseEvent.Kind.ACQUIRED, LeaseEvent.Kind.RESYNCED);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (watcher.backendPid() == pid) {
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
    try (LeaseStore quiet = LeaseStore.builder(db.dataSource()).accessPolicy(AccessPolicy.allowAll()).build()) {
      Lease lease = ((AcquireResult.Acquired) quiet.tryAcquire(key, "acct")).lease();
      lease.release();
      // Nothing was notified; a change by a notifying store is the next event.
      Lease loud = acquire(store);
      LeaseEvent e = next();
      assertThat(e.kind()).isEqualTo(LeaseEvent.Kind.ACQUIRED);
      assertThat(e.status().owner().orElseThrow().runId()).isEqualTo(loud.runId());
      assertThat(loud.fence()).isGreaterThan(lease.fence());
    }
  }

  @Test
  void subscribeAllHearsEveryKey() throws Exception {
    BlockingQueue<LeaseEvent> everything = new LinkedBlockingQueue<>();
    watcher.subscribeAll(everything::add);
    LeaseKey another = LeaseKey.of("acct", key.sessionId() + "-another");
    Lease lease = ((AcquireResult.Acquired) store.tryAcquire(another, "acct")).lease();
    LeaseEvent e = everything.poll(10, TimeUnit.SECONDS);
    assertThat(e).isNotNull();
    assertThat(e.status().key()).isEqualTo(another);
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
    LeaseEvent acquired = next();
    assertThat(acquired.kind()).isEqualTo(LeaseEvent.Kind.ACQUIRED);
    assertThat(acquired.status().owner().orElseThrow().runId()).isEqualTo(lease.runId());
    assertThat(watcher.malformedNotifications()).isEqualTo(4);
    lease.release();
  }
}
