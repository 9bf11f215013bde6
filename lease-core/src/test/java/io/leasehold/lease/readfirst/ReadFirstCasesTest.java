package io.leasehold.lease.readfirst;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.fencing.LeaseKey;
import io.leasehold.lease.AccessDeniedException;
import io.leasehold.lease.AccessPolicy;
import io.leasehold.lease.AcquireRequest;
import io.leasehold.lease.AcquireResult;
import io.leasehold.lease.Lease;
import io.leasehold.lease.LeaseOwner;
import io.leasehold.lease.LeaseStatus;
import io.leasehold.lease.LeaseStore;
import io.leasehold.lease.LeaseStoreListener;
import io.leasehold.lease.support.LeaseDatabase;
import io.leasehold.lease.support.LockWaits;
import io.leasehold.testing.SingleServerOnly;
import io.leasehold.testing.Sql;
import io.leasehold.testing.TestDataSources;
import io.leasehold.testing.TestDatabaseExtension;
import java.sql.Connection;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.function.ThrowingSupplier;

/**
 * Red team 51: a key a store found taken is answered by a read of its row first. Every probe makes
 * a store find its key taken (a refusal), then puts the row into a state (by the store's own
 * operations or behind its back, with database-side times) and checks the answer against the full
 * acquire's (a store that never met the key) and against the docs: only an UPDATE grants, a refusal
 * that finds the key held draws no fence, Busy carries the holder's row.
 */
@SingleServerOnly(
    "a Citus coordinator always gets the full acquire; the read first is one PostgreSQL's")
class ReadFirstCasesTest {
  @RegisterExtension static final TestDatabaseExtension db = LeaseDatabase.extension();

  private final List<String> sent = new CopyOnWriteArrayList<>();
  private final List<AutoCloseable> closeables = new ArrayList<>();

  @AfterEach
  void closeAll() throws Exception {
    for (AutoCloseable c : closeables) {
      c.close();
    }
  }

  private LeaseStore store(String holder, Duration takeoverDelay, DataSource source) {
    LeaseStore s =
        LeaseStore.builder(source)
            .accessPolicy(AccessPolicy.allowAll().withAdministrators(Set.of("ops")))
            .ttl(Duration.ofSeconds(5))
            .takeoverDelay(takeoverDelay)
            .defaultHolder(holder)
            .build();
    closeables.add(0, s);
    return s;
  }

  private LeaseStore store(String holder) {
    return store(holder, Duration.ZERO, db.dataSource());
  }

  /** A store whose statements are recorded in {@link #sent}. */
  private LeaseStore recorded(String holder, Duration takeoverDelay) {
    return store(holder, takeoverDelay, TestDataSources.recording(db.dataSource(), sent));
  }

  static boolean isRead(String sql) {
    return sql.contains("SELECT statement_timestamp(), l.run_id") && !sql.contains("SET run_id");
  }

  static boolean isAcquireWrite(String sql) {
    return sql.contains("SET run_id") || sql.contains("INSERT INTO");
  }

  private long reads() {
    return sent.stream().filter(ReadFirstCasesTest::isRead).count();
  }

  private long writes() {
    return sent.stream().filter(ReadFirstCasesTest::isAcquireWrite).count();
  }

  static long lastFence() throws Exception {
    return ((Number)
            Sql.query(db.dataSource(), "SELECT last_value FROM leasehold_fence_seq").get(0).get(0))
        .longValue();
  }

  static Instant dbNow() throws Exception {
    return ((Timestamp) Sql.query(db.dataSource(), "SELECT statement_timestamp()").get(0).get(0))
        .toInstant();
  }

  static List<Object> row(LeaseKey key) throws Exception {
    List<List<Object>> rows =
        Sql.query(
            db.dataSource(),
            "SELECT run_id, fence, holder, acquired_at, renewed_at, expires_at, released_at,"
                + " took_over FROM leasehold_lease WHERE account_id = ? AND session_id = ?",
            key.accountId(),
            key.sessionId());
    assertThat(rows).hasSize(1);
    return rows.get(0);
  }

  /** Writes the row of {@code key} with absolute times, as a peer or an operator could. */
  static void setRow(
      LeaseKey key,
      UUID run,
      long fence,
      String holder,
      Instant acquired,
      Instant expires,
      Instant released)
      throws Exception {
    int n =
        Sql.update(
            db.dataSource(),
            "UPDATE leasehold_lease SET run_id = ?, fence = ?, holder = ?, acquired_at = ?,"
                + " renewed_at = ?, expires_at = ?, released_at = ?, took_over = false"
                + " WHERE account_id = ? AND session_id = ?",
            run,
            fence,
            holder,
            Timestamp.from(acquired),
            Timestamp.from(acquired),
            Timestamp.from(expires),
            released == null ? null : Timestamp.from(released),
            key.accountId(),
            key.sessionId());
    assertThat(n).isEqualTo(1);
  }

  static AcquireResult.Busy busy(AcquireResult r, String what) {
    assertThat(r).as(what).isInstanceOf(AcquireResult.Busy.class);
    return (AcquireResult.Busy) r;
  }

  static Lease granted(AcquireResult r, String what) {
    assertThat(r).as(what).isInstanceOf(AcquireResult.Acquired.class);
    return ((AcquireResult.Acquired) r).lease();
  }

  private static AcquireResult ask(LeaseStore s, LeaseKey key) {
    return s.tryAcquire(AcquireRequest.of(key, key.accountId()));
  }

  /** A row state, in milliseconds from a base database time; released null when not released. */
  record RowState(String name, long expiresMs, Long releasedMs) {}

  /**
   * For each row state and takeover delay: a store that found the key taken (it answers with the
   * read first) and a store that never met the key (the full acquire) get the same answer, with the
   * same status, and neither draws a fence when it refuses.
   */
  static final List<RowState> STATES =
      List.of(
          new RowState("held", 10_000, null),
          new RowState("held for a year", 365L * 24 * 3600 * 1000, null),
          new RowState("expired 1 s ago", -1_000, null),
          new RowState("expired 4.7 s ago", -4_700, null),
          new RowState("expired 5.3 s ago", -5_300, null),
          new RowState("expired 20 s ago", -20_000, null),
          new RowState("released cleanly 1 s ago", -1_000, -1_000L),
          new RowState("released with a hold that runs 10 s more", 10_000, -1_000L),
          new RowState("a hold that ended 1 s ago", -1_000, -3_000L),
          new RowState("a hold that ended 1 ms ago", -1, -3_000L),
          new RowState("released after it expired", -2_000, -1_000L),
          new RowState("released at a future time after its expiry", 10_000, 20_000L),
          new RowState("released at a future time equal to its expiry", 10_000, 10_000L),
          new RowState("released at a future time before its expiry", 10_000, 5_000L),
          new RowState("released in the future, expired in the past", -1_000, 5_000L),
          new RowState("released at a time long past, hold running", 10_000, -100_000L));

  /**
   * For each row state and takeover delay: a store that found the key taken (it answers with the
   * read first) and a store that never met the key (the full acquire) get the same answer, with the
   * same status, and neither draws a fence when it refuses.
   */
  @Test
  void theReadAnswersAsTheFullAcquireForEveryRowState() throws Exception {
    List<String> differences = compareAll(db.dataSource(), LeaseKey.of("acct", "rf-diff"));
    differences.forEach(d -> System.out.println("read first: DIFFERENCE " + d));
    assertThat(differences).isEmpty();
  }

  /** The same in a JVM and database sessions far from UTC, on both sides of it. */
  @Test
  void theReadAnswersAsTheFullAcquireFarFromUtc() throws Exception {
    java.util.TimeZone saved = java.util.TimeZone.getDefault();
    List<String> differences = new ArrayList<>();
    try {
      for (String zone : List.of("Pacific/Kiritimati", "Etc/GMT+12", "America/St_Johns")) {
        java.util.TimeZone.setDefault(java.util.TimeZone.getTimeZone(zone));
        try (com.zaxxer.hikari.HikariDataSource pool = db.database().newPool(3)) {
          Sql.update(pool, "SET TIME ZONE '" + zone + "'"); // one connection; the JVM sets the rest
          for (String d : compareAll(pool, LeaseKey.of("acct", "rf-tz-" + zone))) {
            differences.add(zone + ": " + d);
          }
        }
      }
    } finally {
      java.util.TimeZone.setDefault(saved);
    }
    differences.forEach(d -> System.out.println("read first: DIFFERENCE " + d));
    assertThat(differences).isEmpty();
  }

  private List<String> compareAll(DataSource source, LeaseKey key) throws Exception {
    granted(ask(store("creator", Duration.ZERO, source), key), "creator").release();
    List<String> differences = new ArrayList<>();
    for (Duration delay : List.of(Duration.ZERO, Duration.ofSeconds(5))) {
      for (RowState st : STATES) {
        Instant base = dbNow();
        UUID run = UUID.randomUUID();
        long fence = lastFence() + 1000;
        Instant expires = base.plusMillis(st.expiresMs());
        Instant released = st.releasedMs() == null ? null : base.plusMillis(st.releasedMs());
        Instant acquired = base.minusSeconds(30);
        // The read-first store: it finds the key held once, then the row changes.
        sent.clear();
        LeaseStore reader = store("reader", delay, TestDataSources.recording(source, sent));
        setRow(key, UUID.randomUUID(), fence - 1, "prior", acquired, base.plusSeconds(60), null);
        busy(ask(reader, key), "priming refusal");
        setRow(key, run, fence, "holder", acquired, expires, released);
        long drawn = lastFence();
        sent.clear();
        AcquireResult viaRead = ask(reader, key);
        long readDraws = lastFence() - drawn;
        boolean readSent = reads() == 1;
        // The full acquire: a store that never met the key, on the same row.
        setRow(key, run, fence, "holder", acquired, expires, released);
        LeaseStore full = store("full", delay, source);
        drawn = lastFence();
        AcquireResult viaFull = ask(full, key);
        long fullDraws = lastFence() - drawn;
        String what = st.name() + " (delay " + delay + ")";
        if (!readSent) {
          differences.add(what + ": the read was not sent: " + sent);
        }
        if (viaRead.getClass() != viaFull.getClass()) {
          differences.add(what + ": read " + viaRead + " but full " + viaFull);
        } else if (viaRead instanceof AcquireResult.Busy rb) {
          LeaseStatus r = rb.status();
          LeaseStatus f = ((AcquireResult.Busy) viaFull).status();
          if (r.state() != f.state()
              || !r.owner().equals(f.owner())
              || !r.acquirableAt().equals(f.acquirableAt())) {
            differences.add(what + ": read " + r + " but full " + f);
          }
          if (r.owner().isEmpty()
              || r.owner().get().fence() != fence
              || !r.owner().get().runId().equals(run)
              || !r.owner().get().expiresAt().equals(expires)) {
            differences.add(what + ": Busy does not carry the holder's row: " + r);
          }
          if (readDraws != 0 || fullDraws != 0) {
            differences.add(
                what + ": refusal drew fences: read " + readDraws + " full " + fullDraws);
          }
        } else if (viaRead instanceof AcquireResult.Acquired ra) {
          if (ra.lease().fence() <= fence) {
            differences.add(what + ": read path granted fence " + ra.lease().fence());
          }
          ra.lease().release();
          ((AcquireResult.Acquired) viaFull).lease().release();
        }
        System.out.println(
            "read first: " + what + ": " + simple(viaRead) + " / full " + simple(viaFull));
        reader.close();
        full.close();
      }
    }
    return differences;
  }

  private static String simple(AcquireResult r) {
    return r.match(
        l -> "Acquired fence " + l.fence(),
        s -> "Busy " + s.state() + " acquirableAt " + s.acquirableAt(),
        t -> "TooLate");
  }

  @Test
  void aCleanReleaseIsGrantedAtOnceByADelayedStoreThatFoundTheKeyTaken() throws Exception {
    LeaseKey key = LeaseKey.of("acct", "rf-release-delay");
    LeaseStore holder = store("holder");
    LeaseStore delayed = recorded("delayed", Duration.ofSeconds(10));
    Lease held = granted(ask(holder, key), "holder");
    busy(ask(delayed, key), "held");
    sent.clear();
    AcquireResult.Busy again = busy(ask(delayed, key), "held, by the read");
    assertThat(reads()).isEqualTo(1);
    assertThat(writes()).isZero();
    assertThat(again.status().owner().orElseThrow().runId()).isEqualTo(held.runId());
    held.release();
    Lease mine = granted(ask(delayed, key), "released cleanly: no takeover delay");
    assertThat(mine.fence()).isGreaterThan(held.fence());
  }

  @Test
  void aHoldIsDrainingWithItsEndThenGrantedAtItsEnd() throws Exception {
    LeaseKey key = LeaseKey.of("acct", "rf-hold");
    LeaseStore holder = store("holder");
    LeaseStore reader = recorded("reader", Duration.ofSeconds(10));
    Lease held = granted(ask(holder, key), "holder");
    busy(ask(reader, key), "held");
    Instant until = held.acquiredAt().plusSeconds(4);
    held.releaseHolding(until);
    long drawn = lastFence();
    sent.clear();
    LeaseStatus st = busy(ask(reader, key), "held with a hold").status();
    assertThat(reads()).isEqualTo(1);
    assertThat(writes()).isZero();
    assertThat(lastFence()).isEqualTo(drawn);
    assertThat(st.state()).isEqualTo(LeaseStatus.State.DRAINING);
    assertThat(st.acquirableAt()).isEqualTo(until);
    assertThat(st.owner().orElseThrow().runId()).isEqualTo(held.runId());
    // The hold ends (moved by the database's clock): the takeover delay does not apply to it.
    Sql.update(
        db.dataSource(),
        "UPDATE leasehold_lease SET expires_at = statement_timestamp() - interval '1 millisecond',"
            + " released_at = statement_timestamp() - interval '2 seconds'"
            + " WHERE account_id = ? AND session_id = ?",
        key.accountId(),
        key.sessionId());
    Lease mine = granted(ask(reader, key), "the hold is over");
    assertThat(mine.fence()).isGreaterThan(held.fence());
  }

  @Test
  void anExpiryWithinTheDelayIsDrainingAndPastItIsGranted() throws Exception {
    LeaseKey key = LeaseKey.of("acct", "rf-expiry");
    LeaseStore holder = store("holder");
    LeaseStore reader = recorded("reader", Duration.ofSeconds(3));
    LeaseStore undelayed = recorded("undelayed", Duration.ZERO);
    Lease held = granted(ask(holder, key), "holder");
    busy(ask(reader, key), "held");
    busy(ask(undelayed, key), "held");
    Sql.update(
        db.dataSource(),
        "UPDATE leasehold_lease SET expires_at = statement_timestamp() - interval '1 second'"
            + " WHERE account_id = ? AND session_id = ?",
        key.accountId(),
        key.sessionId());
    long drawn = lastFence();
    LeaseStatus st = busy(ask(reader, key), "expired within the delay").status();
    assertThat(st.state()).isEqualTo(LeaseStatus.State.DRAINING);
    assertThat(st.acquirableAt())
        .isEqualTo(st.owner().orElseThrow().expiresAt().plus(Duration.ofSeconds(3)));
    assertThat(lastFence()).isEqualTo(drawn);
    // The store without a delay takes it over at once, whatever the other store's delay.
    Lease taken = granted(ask(undelayed, key), "no delay for this store");
    assertThat(taken.fence()).isGreaterThan(held.fence());
    taken.release();
    Sql.update(
        db.dataSource(),
        "UPDATE leasehold_lease SET released_at = NULL, expires_at = statement_timestamp() -"
            + " interval '4 seconds' WHERE account_id = ? AND session_id = ?",
        key.accountId(),
        key.sessionId());
    Lease mine = granted(ask(reader, key), "expired past the delay");
    assertThat(mine.fence()).isGreaterThan(taken.fence());
  }

  @Test
  void aRowDeletedBehindTheStoresBackIsGrantedNotBusy() throws Exception {
    LeaseKey key = LeaseKey.of("acct", "rf-deleted");
    LeaseStore holder = store("holder");
    LeaseStore reader = recorded("reader", Duration.ZERO);
    Lease held = granted(ask(holder, key), "holder");
    busy(ask(reader, key), "held");
    Sql.update(
        db.dataSource(),
        "DELETE FROM leasehold_lease WHERE account_id = ? AND session_id = ?",
        key.accountId(),
        key.sessionId());
    sent.clear();
    Lease mine = granted(ask(reader, key), "no row: free");
    assertThat(reads()).isLessThanOrEqualTo(1);
    assertThat(mine.fence()).isGreaterThan(held.fence());
    assertThat(row(key).get(0)).isEqualTo(mine.runId());
  }

  @Test
  void aFenceChangedBehindTheStoresBackIsWhatBusyCarriesAndTheNextGrantRisesAboveIt()
      throws Exception {
    LeaseKey key = LeaseKey.of("acct", "rf-fence-edit");
    LeaseStore holder = store("holder");
    LeaseStore reader = recorded("reader", Duration.ZERO);
    Lease held = granted(ask(holder, key), "holder");
    busy(ask(reader, key), "held");
    long high = 1_000_000_000_000L;
    Sql.update(
        db.dataSource(),
        "UPDATE leasehold_lease SET fence = ?, holder = 'edited' WHERE account_id = ? AND"
            + " session_id = ?",
        high,
        key.accountId(),
        key.sessionId());
    LeaseOwner o = busy(ask(reader, key), "held").status().owner().orElseThrow();
    assertThat(o.fence()).isEqualTo(high);
    assertThat(o.holder()).isEqualTo("edited");
    assertThat(o.runId()).isEqualTo(held.runId());
    // C4: release matches the fence too, so the holder's release no longer matches the row.
    assertThat(held.release().released()).isFalse();
    busy(ask(reader, key), "still held by the edited row");
    assertThat(store("operator").admin().forceRelease(key, "ops", "red team").released()).isTrue();
    Lease mine = granted(ask(reader, key), "released");
    assertThat(mine.fence()).isGreaterThan(high);
  }

  @Test
  void theSequenceSetBackStillGivesAFenceAboveTheRowOnTheReadPath() throws Exception {
    LeaseKey key = LeaseKey.of("acct", "rf-setval");
    LeaseStore holder = store("holder");
    LeaseStore reader = recorded("reader", Duration.ZERO);
    Lease held = granted(ask(holder, key), "holder");
    busy(ask(reader, key), "held");
    Sql.query(db.dataSource(), "SELECT setval('leasehold_fence_seq', 1)");
    held.release();
    sent.clear();
    Lease mine = granted(ask(reader, key), "released");
    assertThat(reads()).isEqualTo(1);
    assertThat(mine.fence()).isGreaterThan(held.fence());
    mine.release();
    // and the second grant after a read, and the one after that (the UPDATE alone again)
    Lease second = granted(ask(reader, key), "second");
    assertThat(second.fence()).isGreaterThan(mine.fence());
    second.release();
    Lease third = granted(ask(reader, key), "third");
    assertThat(third.fence()).isGreaterThan(second.fence());
    third.release();
    Sql.query(
        db.dataSource(),
        "SELECT setval('leasehold_fence_seq', (SELECT max(fence) FROM leasehold_lease))");
  }

  @Test
  void aHeldRowLockedByAnotherConnectionIsAnsweredBusyWithoutWaiting() throws Exception {
    LeaseKey key = LeaseKey.of("acct", "rf-locked-held");
    LeaseStore holder = store("holder");
    LeaseStore reader =
        store(
            "reader",
            Duration.ZERO,
            TestDataSources.recording(db.dataSource(), sent)); // lockTimeout 500 ms
    Lease held = granted(ask(holder, key), "holder");
    busy(ask(reader, key), "held");
    try (Connection lock = LockWaits.lockRow(db, key)) {
      long t0 = System.nanoTime();
      AcquireResult.Busy b = busy(ask(reader, key), "held and locked");
      long ms = (System.nanoTime() - t0) / 1_000_000;
      assertThat(b.status().owner().orElseThrow().runId()).isEqualTo(held.runId());
      assertThat(b.status().state()).isEqualTo(LeaseStatus.State.HELD);
      assertThat(ms).as("a read takes no lock").isLessThan(400);
      lock.rollback();
    }
  }

  @Test
  void aFreeRowLockedByAnotherConnectionIsBusyNotAnErrorAndDrawsNoGrant() throws Exception {
    LeaseKey key = LeaseKey.of("acct", "rf-locked-free");
    LeaseStore holder = store("holder");
    LeaseStore reader = recorded("reader", Duration.ZERO);
    Lease held = granted(ask(holder, key), "holder");
    busy(ask(reader, key), "held");
    held.release();
    try (Connection lock = LockWaits.lockRow(db, key)) {
      AcquireResult r = ask(reader, key);
      AcquireResult.Busy b = busy(r, "free but locked past lockTimeout");
      assertThat(b.status().owner().orElseThrow().runId()).isEqualTo(held.runId());
      lock.rollback();
    }
    assertThat(row(key).get(0)).isEqualTo(held.runId());
    Lease mine = granted(ask(reader, key), "unlocked");
    assertThat(mine.fence()).isGreaterThan(held.fence());
  }

  @Test
  void anUncommittedTakeoverSeenByTheReadAsFreeEndsBusyWithTheContender() throws Exception {
    LeaseKey key = LeaseKey.of("acct", "rf-uncommitted");
    LeaseStore holder = store("holder");
    LeaseStore reader = recorded("reader", Duration.ZERO);
    Lease held = granted(ask(holder, key), "holder");
    busy(ask(reader, key), "held");
    held.release();
    UUID contender = UUID.randomUUID();
    Connection c = db.database().newConnection();
    try {
      c.setAutoCommit(false);
      Sql.update(
          c,
          "UPDATE leasehold_lease SET run_id = ?, fence = nextval('leasehold_fence_seq'),"
              + " holder = 'contender', acquired_at = statement_timestamp(), renewed_at ="
              + " statement_timestamp(), expires_at = statement_timestamp() + interval '1 minute',"
              + " released_at = NULL WHERE account_id = ? AND session_id = ?",
          contender,
          key.accountId(),
          key.sessionId());
      long lockHolder = LockWaits.lockHolderId(c);
      var answer = java.util.concurrent.CompletableFuture.supplyAsync(() -> ask(reader, key));
      LockWaits.awaitABackendBlockedBy(db, lockHolder, "the reader's acquire");
      c.commit();
      AcquireResult.Busy b = busy(answer.get(), "the contender committed a live lease");
      assertThat(b.status().state()).isEqualTo(LeaseStatus.State.HELD);
      assertThat(b.status().owner().orElseThrow().runId()).isEqualTo(contender);
    } finally {
      c.close();
    }
  }

  @Test
  void oneReportedAttemptPerAcquireOnTheReadPath() throws Exception {
    LeaseKey key = LeaseKey.of("acct", "rf-listener");
    LeaseStore holder = store("holder");
    LeaseStore reader = recorded("reader", Duration.ZERO);
    List<String> events = new CopyOnWriteArrayList<>();
    reader.addListener(
        new LeaseStoreListener() {
          @Override
          public void started(Operation operation) {
            events.add("start " + operation);
          }

          @Override
          public void acquireEnded(AcquireOutcome outcome, Duration latency) {
            events.add("end " + outcome);
          }

          @Override
          public void releaseEnded(ReleaseOutcome outcome, Duration latency) {
            events.add("release " + outcome);
          }
        });
    Lease held = granted(ask(holder, key), "holder");
    busy(ask(reader, key), "held");
    assertThat(events).containsExactly("start ACQUIRE", "end BUSY");
    events.clear();
    sent.clear();
    busy(ask(reader, key), "held, by the read");
    assertThat(reads()).isEqualTo(1);
    assertThat(events).containsExactly("start ACQUIRE", "end BUSY");
    events.clear();
    held.release();
    sent.clear();
    Lease mine = granted(ask(reader, key), "read then full acquire");
    assertThat(reads()).isEqualTo(1);
    assertThat(writes()).isEqualTo(1);
    assertThat(events).containsExactly("start ACQUIRE", "end ACQUIRED");
    events.clear();
    mine.release();
    assertThat(events).containsExactly("start RELEASE", "release RELEASED");
  }

  @Test
  void aDeniedCallerOnAKeyFoundTakenTouchesNothing() throws Exception {
    LeaseKey key = LeaseKey.of("acct", "rf-denied");
    AtomicInteger connections = new AtomicInteger();
    LeaseStore reader =
        LeaseStore.builder(TestDataSources.counting(db.dataSource(), connections))
            .accessPolicy(AccessPolicy.callerOwnsAccount())
            .ttl(Duration.ofSeconds(5))
            .build();
    closeables.add(0, reader);
    Lease held = granted(ask(store("holder"), key), "holder");
    busy(reader.tryAcquire(key, "acct"), "held");
    connections.set(0);
    ThrowingSupplier<AcquireResult> denied = () -> reader.tryAcquire(key, "someone-else");
    org.junit.jupiter.api.Assertions.assertThrows(AccessDeniedException.class, denied::get);
    assertThat(connections.get()).isZero();
    held.release();
    reader.close();
    org.junit.jupiter.api.Assertions.assertThrows(
        IllegalStateException.class, () -> reader.tryAcquire(key, "acct"));
  }

  @Test
  void aWaitingAcquireOnAKeyFoundTakenGetsItWhenTheHoldEnds() throws Exception {
    LeaseKey key = LeaseKey.of("acct", "rf-wait");
    LeaseStore holder = store("holder");
    LeaseStore reader = recorded("reader", Duration.ZERO);
    Lease held = granted(ask(holder, key), "holder");
    busy(ask(reader, key), "held");
    Instant until = dbNow().plusMillis(400);
    held.releaseHolding(until);
    sent.clear();
    long t0 = System.nanoTime();
    AcquireResult r = reader.acquire(AcquireRequest.of(key, "acct"), Duration.ofSeconds(5));
    long ms = (System.nanoTime() - t0) / 1_000_000;
    Lease mine = granted(r, "after the hold");
    assertThat(mine.acquiredAt()).isAfterOrEqualTo(until);
    assertThat(mine.fence()).isGreaterThan(held.fence());
    System.out.println(
        "read first: waited "
            + ms
            + " ms for a 400 ms hold; reads "
            + reads()
            + ", writes "
            + writes());
    assertThat(ms).isLessThan(3_000);
  }

  @Test
  void aForceReleaseByAnotherStoreIsGrantedByTheReadPath() throws Exception {
    LeaseKey key = LeaseKey.of("acct", "rf-force");
    LeaseStore holder = store("holder");
    LeaseStore reader = recorded("reader", Duration.ofSeconds(10));
    Lease held = granted(ask(holder, key), "holder");
    busy(ask(reader, key), "held");
    assertThat(store("operator").admin().forceRelease(key, "ops", "red team").released()).isTrue();
    Lease mine = granted(ask(reader, key), "force-released");
    assertThat(mine.fence()).isGreaterThan(held.fence());
  }

  @Test
  void keysThatLookAlikeAreNotConfused() throws Exception {
    LeaseKey a = LeaseKey.of("acct|x", "y");
    LeaseKey b = LeaseKey.of("acct", "x|y");
    LeaseKey c = LeaseKey.of("acct", "x|y ");
    LeaseStore holder = store("holder");
    LeaseStore reader = recorded("reader", Duration.ZERO);
    Lease ha = granted(ask(holder, a), "a");
    Lease hb = granted(ask(holder, b), "b");
    Lease hc = granted(ask(holder, c), "c");
    busy(ask(reader, a), "a");
    busy(ask(reader, b), "b");
    busy(ask(reader, c), "c");
    hb.release();
    assertThat(busy(ask(reader, a), "a").status().owner().orElseThrow().runId())
        .isEqualTo(ha.runId());
    assertThat(busy(ask(reader, c), "c").status().owner().orElseThrow().runId())
        .isEqualTo(hc.runId());
    granted(ask(reader, b), "b released");
  }

  @Test
  void moreKeysThanTheStoreRemembersKeepTheirAnswers() throws Exception {
    int n = 4_300;
    String acct = "many";
    // n held rows written by a peer (database-side), one fence each
    Sql.update(
        db.dataSource(),
        "INSERT INTO leasehold_lease (account_id, session_id, run_id, fence, holder, acquired_at,"
            + " renewed_at, expires_at, released_at, took_over) SELECT ?, 'k' || g,"
            + " gen_random_uuid(), nextval('leasehold_fence_seq'), 'peer', statement_timestamp(),"
            + " statement_timestamp(), statement_timestamp() + interval '1 minute', NULL, false"
            + " FROM generate_series(0, ?) g",
        acct,
        n - 1);
    LeaseStore reader =
        store("reader", Duration.ZERO, db.dataSource()); // not recorded: n statements
    long drawn = lastFence();
    for (int i = 0; i < n; i++) {
      busy(ask(reader, LeaseKey.of(acct, "k" + i)), "k" + i);
    }
    for (int i = 0; i < n; i++) {
      busy(ask(reader, LeaseKey.of(acct, "k" + i)), "k" + i + " again");
    }
    assertThat(lastFence()).as("refusals draw no fence").isEqualTo(drawn);
    // release some early and late ones behind the store's back (a clean release)
    int[] picks = {0, 1, 2, 4_095, 4_096, 4_097, n - 1};
    for (int i : picks) {
      Sql.update(
          db.dataSource(),
          "UPDATE leasehold_lease SET released_at = statement_timestamp(), expires_at ="
              + " statement_timestamp() WHERE account_id = ? AND session_id = ?",
          acct,
          "k" + i);
    }
    for (int i : picks) {
      LeaseKey k = LeaseKey.of(acct, "k" + i);
      long before = ((Number) row(k).get(1)).longValue();
      Lease l = granted(ask(reader, k), k.toString());
      assertThat(l.fence()).isGreaterThan(before);
      busy(ask(reader, LeaseKey.of(acct, "k" + (i == 3 ? 5 : 3))), "still held");
    }
  }

  /** Stores hammering a key that stays held draw no fence, by the read or otherwise. */
  @Test
  void manyStoresRefusedOnAHeldKeyDrawNoFence() throws Exception {
    LeaseKey key = LeaseKey.of("acct", "rf-hammer");
    LeaseStore holder = store("holder");
    Lease held = granted(ask(holder, key), "holder");
    held.renew(Duration.ofSeconds(60));
    List<LeaseStore> stores = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      DataSource source = i < 2 ? db.dataSource() : db.database().newPool(2);
      if (source instanceof com.zaxxer.hikari.HikariDataSource h && i >= 2) {
        closeables.add(h);
      }
      stores.add(store("s" + i, Duration.ZERO, source));
    }
    long drawn = lastFence();
    List<AcquireResult> answers =
        io.leasehold.testing.Contenders.atOnce(
            8,
            () -> {
              AcquireResult last = null;
              for (int i = 0; i < 50; i++) {
                last = ask(stores.get(i % stores.size()), key);
                if (!(last instanceof AcquireResult.Busy b)
                    || !b.status().owner().orElseThrow().runId().equals(held.runId())) {
                  return last;
                }
              }
              return last;
            },
            Duration.ofSeconds(20));
    for (AcquireResult r : answers) {
      assertThat(busy(r, "held").status().owner().orElseThrow().runId()).isEqualTo(held.runId());
    }
    assertThat(lastFence()).as("400 refusals of a held key").isEqualTo(drawn);
  }

  /** A key the store found taken, swept, then granted: its fence rises above the swept one. */
  @Test
  void aKeyFoundTakenThenSweptIsGrantedAboveItsLastFence() throws Exception {
    LeaseKey key = LeaseKey.of("acct", "rf-swept");
    LeaseStore holder = store("holder");
    LeaseStore reader = recorded("reader", Duration.ZERO);
    Lease held = granted(ask(holder, key), "holder");
    busy(ask(reader, key), "held");
    held.release();
    LeaseDatabase.endedDaysAgo(db, key, 3, true);
    assertThat(holder.admin().sweep(Duration.ofDays(2), "ops")).isEqualTo(1);
    Sql.query(db.dataSource(), "SELECT setval('leasehold_fence_seq', 1)");
    AcquireResult r;
    try {
      r = ask(reader, key);
    } finally {
      Sql.query(
          db.dataSource(),
          "SELECT setval('leasehold_fence_seq', (SELECT max(fence) + 1 FROM (SELECT fence FROM"
              + " leasehold_lease UNION ALL SELECT fence FROM leasehold_lease_fence_floor) f))");
    }
    // The store checked its sequence at its first statement, before the setval: the key has no
    // row, so its first acquire draws above the fence floor, which holds the swept fence (C3).
    assertThat(r)
        .isInstanceOfSatisfying(
            AcquireResult.Acquired.class,
            a -> assertThat(a.lease().fence()).isGreaterThan(held.fence()));
  }

  private List<String> forms() {
    List<String> f = new ArrayList<>();
    for (String sql : sent) {
      if (isRead(sql)) {
        f.add("read");
      } else if (sql.contains("INSERT INTO")) {
        f.add("insert");
      } else if (sql.contains("SET run_id")) {
        f.add(sql.contains("UNION ALL") ? "full" : "update alone");
      }
    }
    sent.clear();
    return f;
  }

  /** The statement counts lease-store.md gives under C18, step by step. */
  @Test
  void theStatementsEachAskTakesAreTheOnesTheDocsCount() throws Exception {
    LeaseKey key = LeaseKey.of("acct", "rf-counts");
    LeaseStore other = store("other");
    LeaseStore s = recorded("s", Duration.ZERO);
    Lease mine = granted(ask(s, key), "new key");
    List<String> newKey = forms();
    mine.release();
    Lease again = granted(ask(s, key), "own key");
    assertThat(forms())
        .as("a key it was granted: the UPDATE alone")
        .containsExactly("update alone");
    again.release();
    Lease theirs = granted(ask(other, key), "other");
    busy(ask(s, key), "first refusal of its own key");
    assertThat(forms())
        .as("first refusal of its own key: two")
        .containsExactly("update alone", "full");
    busy(ask(s, key), "refusal of a key found taken");
    assertThat(forms()).as("a refusal: the read alone").containsExactly("read");
    theirs.release();
    Lease g1 = granted(ask(s, key), "grant after the read");
    assertThat(forms())
        .as("a grant of a key taken a moment ago: two")
        .containsExactly("read", "full");
    g1.release();
    Lease g2 = granted(ask(s, key), "second grant");
    List<String> second = forms();
    g2.release();
    Lease g3 = granted(ask(s, key), "third grant");
    List<String> third = forms();
    g3.release();
    System.out.println(
        "read first: counts: new key " + newKey + ", second grant " + second + ", third " + third);
    assertThat(second).as("second grant after the read").containsExactly("read", "full");
    assertThat(third)
        .as("after two grants in a row that followed a read")
        .containsExactly("update alone");
    // An UPDATE alone that waits past lockTimeout: Busy, and the key counts as found taken.
    try (Connection lock = LockWaits.lockRow(db, key)) {
      AcquireResult.Busy b = busy(ask(s, key), "locked past lockTimeout");
      assertThat(b.status().owner().orElseThrow().runId()).isEqualTo(g3.runId());
      lock.rollback();
    }
    forms();
    Lease h = granted(ask(other, key), "other again");
    busy(ask(s, key), "held");
    assertThat(forms())
        .as("after a lock timeout the key counts as found taken")
        .containsExactly("read");
    h.release();
  }
}
