package io.leasehold.lease.updatealone;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.fencing.LeaseKey;
import io.leasehold.lease.AccessPolicy;
import io.leasehold.lease.AcquireRequest;
import io.leasehold.lease.AcquireResult;
import io.leasehold.lease.Lease;
import io.leasehold.lease.LeaseEvent;
import io.leasehold.lease.LeaseOwner;
import io.leasehold.lease.LeaseStatus;
import io.leasehold.lease.LeaseStore;
import io.leasehold.lease.LeaseWatcher;
import io.leasehold.lease.support.LeaseDatabase;
import io.leasehold.lease.support.LockWaits;
import io.leasehold.testing.SingleServerOnly;
import io.leasehold.testing.Sql;
import io.leasehold.testing.TestDatabaseExtension;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Timestamp;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A key a store was granted before (so it gets the update alone) must get the same answers as the
 * full acquire under holds, takeover delays, sweeps, row locks, per-request TTLs and holders,
 * TooLate, and live-status events.
 */
@SingleServerOnly(
    "a Citus coordinator always gets the full acquire; UpdateAloneTest's note in docs/scale-out.md")
class UpdateAloneCasesTest {
  @RegisterExtension static final TestDatabaseExtension db = LeaseDatabase.extension();

  private final List<String> sent = new java.util.concurrent.CopyOnWriteArrayList<>();

  private static LeaseStore store(String holder) {
    return LeaseStore.builder(db.dataSource())
        .accessPolicy(AccessPolicy.allowAll().withAdministrators(Set.of("ops")))
        .ttl(Duration.ofSeconds(30))
        .defaultHolder(holder)
        .build();
  }

  private static List<Object> row(LeaseKey key) throws Exception {
    List<List<Object>> rows =
        Sql.query(
            db.dataSource(),
            "SELECT run_id, fence, holder, acquired_at, expires_at, released_at, took_over"
                + " FROM leasehold_lease WHERE account_id = ? AND session_id = ?",
            key.accountId(),
            key.sessionId());
    assertThat(rows).hasSize(1);
    return rows.get(0);
  }

  private static long lastFence() throws Exception {
    return ((Number)
            Sql.query(db.dataSource(), "SELECT last_value FROM leasehold_fence_seq").get(0).get(0))
        .longValue();
  }

  private static Lease granted(LeaseStore store, AcquireRequest request) {
    AcquireResult r = store.tryAcquire(request);
    assertThat(r)
        .as("expected a grant for %s", request.key())
        .isInstanceOf(AcquireResult.Acquired.class);
    return ((AcquireResult.Acquired) r).lease();
  }

  private static Lease granted(LeaseStore store, LeaseKey key) {
    return granted(store, AcquireRequest.of(key, key.accountId()));
  }

  /** Primes the store's memory: the key was granted once and released. */
  private static void prime(LeaseStore store, LeaseKey key) {
    granted(store, key).release();
  }

  private static void assertLeaseMatchesRow(Lease lease) throws Exception {
    List<Object> row = row(lease.key());
    assertThat(row.get(0)).as("run_id").isEqualTo(lease.runId());
    assertThat(((Number) row.get(1)).longValue()).as("fence").isEqualTo(lease.fence());
    assertThat(row.get(2)).as("holder").isEqualTo(lease.holder());
    assertThat(((Timestamp) row.get(3)).toInstant())
        .as("acquired_at")
        .isEqualTo(lease.acquiredAt());
    assertThat(((Timestamp) row.get(4)).toInstant()).as("expires_at").isEqualTo(lease.expiresAt());
    assertThat(row.get(5)).as("released_at").isNull();
  }

  private static void expireRow(LeaseKey key, Duration ago) throws Exception {
    Sql.update(
        db.dataSource(),
        "UPDATE leasehold_lease SET expires_at = statement_timestamp() - ? * interval '1 millisecond'"
            + " WHERE account_id = ? AND session_id = ?",
        ago.toMillis(),
        key.accountId(),
        key.sessionId());
  }

  @Test
  void aHoldOnARememberedKeyIsRefusedByEveryStoreThatRemembersIt() throws Exception {
    LeaseKey key = LeaseKey.of("acct", "ua-hold");
    try (LeaseStore a = store("a");
        LeaseStore b = store("b")) {
      prime(a, key);
      prime(b, key);
      Lease held = granted(a, key);
      held.releaseHolding(held.acquiredAt().plusSeconds(20));
      long drawn = lastFence();
      for (LeaseStore s : List.of(a, b)) {
        AcquireResult r = s.tryAcquire(key, "acct");
        assertThat(r)
            .as("a hold keeps the key unacquirable for a store that remembers it")
            .isInstanceOfSatisfying(
                AcquireResult.Busy.class,
                busy -> {
                  assertThat(busy.status().state()).isEqualTo(LeaseStatus.State.DRAINING);
                  assertThat(busy.status().owner().orElseThrow().runId()).isEqualTo(held.runId());
                  assertThat(busy.status().owner().orElseThrow().fence()).isEqualTo(held.fence());
                });
      }
      assertThat(lastFence()).as("refusals draw no fence").isEqualTo(drawn);
      assertThat(row(key).get(0)).isEqualTo(held.runId());
    }
  }

  @Test
  void aTakeoverDelayIsKeptForARememberedKeyThatExpired() throws Exception {
    LeaseKey key = LeaseKey.of("acct", "ua-delay");
    try (LeaseStore a =
        LeaseStore.builder(db.dataSource())
            .accessPolicy(AccessPolicy.allowAll())
            .ttl(Duration.ofSeconds(30))
            .takeoverDelay(Duration.ofSeconds(20))
            .defaultHolder("delayed")
            .build()) {
      prime(a, key);
      Lease gone = granted(a, key);
      expireRow(key, Duration.ofSeconds(1));
      long drawn = lastFence();
      AcquireResult r = a.tryAcquire(key, "acct");
      assertThat(r)
          .as("expired 1 s ago with a 20 s takeover delay")
          .isInstanceOfSatisfying(
              AcquireResult.Busy.class,
              busy -> {
                assertThat(busy.status().state()).isEqualTo(LeaseStatus.State.DRAINING);
                assertThat(busy.status().owner().orElseThrow().runId()).isEqualTo(gone.runId());
              });
      assertThat(lastFence()).isEqualTo(drawn);
      // Past the delay the remembered key is taken over, fence above.
      expireRow(key, Duration.ofSeconds(21));
      Lease next = granted(a, key);
      assertThat(next.fence()).isGreaterThan(gone.fence());
      assertThat(row(key).get(6)).as("took_over").isEqualTo(true);
      assertLeaseMatchesRow(next);
    }
  }

  @Test
  void perRequestTtlAndHolderReachTheRowOnTheUpdateAlone() throws Exception {
    LeaseKey key = LeaseKey.of("acct", "ua-ttl");
    try (LeaseStore a = store("default-holder")) {
      prime(a, key);
      Lease oneShot =
          granted(
              a,
              AcquireRequest.of(key, "acct").withHolder("special").oneShot(Duration.ofSeconds(2)));
      assertLeaseMatchesRow(oneShot);
      assertThat(Duration.between(oneShot.acquiredAt(), oneShot.expiresAt()))
          .isEqualTo(Duration.ofSeconds(2));
      assertThat(row(key).get(6)).as("took_over after a release").isEqualTo(false);
      oneShot.release();
      Lease longer = granted(a, AcquireRequest.of(key, "acct").withTtl(Duration.ofMinutes(10)));
      assertLeaseMatchesRow(longer);
      assertThat(Duration.between(longer.acquiredAt(), longer.expiresAt()))
          .isEqualTo(Duration.ofMinutes(10));
      assertThat(longer.holder()).isEqualTo("default-holder");
      longer.release();
    }
  }

  @Test
  void aRememberedKeyTheSweepDeletedIsGrantedAboveItsLastFence() throws Exception {
    LeaseKey key = LeaseKey.of("acct", "ua-swept");
    try (LeaseStore a = store("a")) {
      long last = LeaseDatabase.sweptAfterLeases(db, a, key, 3);
      assertThat(
              Sql.query(
                  db.dataSource(),
                  "SELECT 1 FROM leasehold_lease WHERE session_id = ?",
                  key.sessionId()))
          .isEmpty();
      Lease next = granted(a, key);
      assertThat(next.fence()).isGreaterThan(last);
      assertLeaseMatchesRow(next);
      // A second store that never saw the key is refused with the right holder.
      try (LeaseStore b = store("b")) {
        AcquireResult r = b.tryAcquire(key, "acct");
        assertThat(r).isInstanceOf(AcquireResult.Busy.class);
        assertThat(((AcquireResult.Busy) r).status().owner().orElseThrow().runId())
            .isEqualTo(next.runId());
      }
      next.release();
    }
  }

  @Test
  void aRememberedKeyTakenByAnotherStoreWhileIdleIsBusyWithThatHolder() throws Exception {
    LeaseKey key = LeaseKey.of("acct", "ua-idle-taken");
    try (LeaseStore a = store("a");
        LeaseStore b = store("b")) {
      prime(a, key);
      prime(b, key);
      Lease bs = granted(b, key);
      long drawn = lastFence();
      AcquireResult r = a.tryAcquire(key, "acct");
      assertThat(r)
          .isInstanceOfSatisfying(
              AcquireResult.Busy.class,
              busy -> {
                LeaseOwner o = busy.status().owner().orElseThrow();
                assertThat(busy.status().state()).isEqualTo(LeaseStatus.State.HELD);
                assertThat(o.runId()).isEqualTo(bs.runId());
                assertThat(o.fence()).isEqualTo(bs.fence());
                assertThat(o.holder()).isEqualTo("b");
                assertThat(o.expiresAt()).isEqualTo(bs.expiresAt());
              });
      assertThat(lastFence()).isEqualTo(drawn);
      // b's lease expires (not released): a, which remembers the key as taken, takes it over.
      expireRow(key, Duration.ofMillis(1));
      Lease as = granted(a, key);
      assertThat(as.fence()).isGreaterThan(bs.fence());
      assertThat(row(key).get(6)).isEqualTo(true);
      // b, which remembers the key as its own (never found taken), must now be refused.
      AcquireResult rb = b.tryAcquire(key, "acct");
      assertThat(rb).isInstanceOf(AcquireResult.Busy.class);
      assertThat(((AcquireResult.Busy) rb).status().owner().orElseThrow().runId())
          .isEqualTo(as.runId());
      as.release();
    }
  }

  @Test
  void aFreeRememberedRowLockedByAnotherConnectionIsBusyNotAnError() throws Exception {
    LeaseKey key = LeaseKey.of("acct", "ua-locked");
    for (boolean dedicated : new boolean[] {false, true}) {
      try (var pool = db.database().newPool(4);
          LeaseStore a =
              LeaseStore.builder(io.leasehold.testing.TestDataSources.recording(pool, sent))
                  .accessPolicy(AccessPolicy.allowAll())
                  .ttl(Duration.ofSeconds(5))
                  .lockTimeout(Duration.ofMillis(200))
                  .dedicatedPool(dedicated)
                  .defaultHolder("a")
                  .build()) {
        prime(a, key);
        sent.clear();
        try (Connection locker = LockWaits.lockRow(db, key)) {
          long t0 = System.nanoTime();
          AcquireResult r = a.tryAcquire(key, "acct");
          long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
          System.out.printf(
              "update alone: locked free row dedicated=%s: %s after %d ms; statements %s%n",
              dedicated, r, ms, sent.stream().map(RaceRounds::form).toList());
          assertThat(r).isInstanceOf(AcquireResult.Busy.class);
          locker.rollback();
        }
        sent.clear();
        granted(a, key).release();
        System.out.println("update alone: after the lock timeout the next grant sent " + sent);
      }
    }
  }

  @Test
  void aContenderCommittingALiveLeaseWhileTheUpdateAloneWaitsIsBusyWithTheContender()
      throws Exception {
    // The same race for a store that remembers the key (update alone first) and for one that
    // never saw it (full acquire only): the answers and the fences drawn must agree.
    long rememberedDraws = contenderRace(LeaseKey.of("acct", "ua-contender-remembered"), true);
    long fullDraws = contenderRace(LeaseKey.of("acct", "ua-contender-full"), false);
    System.out.printf(
        "update alone: contender: fences drawn by the refused acquire: remembered=%d full=%d%n",
        rememberedDraws, fullDraws);
    assertThat(rememberedDraws)
        .as("fences a refusal draws with the update alone vs the full acquire")
        .isEqualTo(fullDraws);
  }

  private static long contenderRace(LeaseKey key, boolean remembered) throws Exception {
    try (LeaseStore a = store("a");
        LeaseStore primer = store("primer")) {
      prime(remembered ? a : primer, key);
      long drawnBefore;
      UUID contender = UUID.randomUUID();
      AcquireResult r;
      try (Connection locker = LockWaits.lockRow(db, key)) {
        long fence;
        try (PreparedStatement ps =
                locker.prepareStatement("SELECT nextval('leasehold_fence_seq')");
            var rs = ps.executeQuery()) {
          rs.next();
          fence = rs.getLong(1);
        }
        drawnBefore = lastFence();
        var future =
            java.util.concurrent.CompletableFuture.supplyAsync(() -> a.tryAcquire(key, "acct"));
        LockWaits.awaitABackendBlockedBy(db, LockWaits.lockHolderId(locker), "acquire");
        Sql.update(
            locker,
            "UPDATE leasehold_lease SET run_id = ?, fence = ?, holder = 'contender',"
                + " acquired_at = statement_timestamp(), renewed_at = statement_timestamp(),"
                + " expires_at = statement_timestamp() + interval '30 seconds', released_at = NULL"
                + " WHERE account_id = ? AND session_id = ?",
            contender,
            fence,
            key.accountId(),
            key.sessionId());
        locker.commit();
        r = future.get(10, TimeUnit.SECONDS);
      }
      long drawn = lastFence() - drawnBefore;
      assertThat(r)
          .isInstanceOfSatisfying(
              AcquireResult.Busy.class,
              busy -> assertThat(busy.status().owner().orElseThrow().runId()).isEqualTo(contender));
      assertThat(row(key).get(0)).isEqualTo(contender);
      return drawn;
    }
  }

  @Test
  void theUpdateAlonesConnectionKilledWhileItWaitsGrantsNothingUnknown() throws Exception {
    for (boolean killWaiter : new boolean[] {true, false}) {
      LeaseKey key = LeaseKey.of("acct", "ua-killed-" + killWaiter);
      try (LeaseStore a =
          LeaseStore.builder(db.dataSource())
              .accessPolicy(AccessPolicy.allowAll())
              .ttl(Duration.ofSeconds(30))
              .lockTimeout(Duration.ofSeconds(3))
              .defaultHolder("a")
              .build()) {
        prime(a, key);
        UUID before = (UUID) row(key).get(0);
        Object outcome;
        try (Connection locker = LockWaits.lockRow(db, key)) {
          long lockerPid = LockWaits.lockHolderId(locker);
          var future =
              java.util.concurrent.CompletableFuture.supplyAsync(() -> a.tryAcquire(key, "acct"));
          LockWaits.awaitABackendBlockedBy(db, lockerPid, "update alone");
          String victim =
              killWaiter
                  ? "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                      + " WHERE ?::int = ANY (pg_blocking_pids(pid))"
                  : "SELECT pg_terminate_backend(?::int)";
          assertThat(Sql.query(db.dataSource(), victim, lockerPid)).hasSize(1);
          try {
            outcome = future.get(15, TimeUnit.SECONDS);
          } catch (java.util.concurrent.ExecutionException e) {
            outcome = e.getCause();
          }
        }
        List<Object> after = row(key);
        System.out.printf(
            "update alone: killed %s: outcome %s; row run %s (before %s)%n",
            killWaiter ? "the waiting acquire" : "the lock holder", outcome, after.get(0), before);
        if (outcome instanceof AcquireResult.Acquired acquired) {
          assertLeaseMatchesRow(acquired.lease());
          acquired.lease().release();
        } else {
          assertThat(after.get(0)).as("no grant the caller does not know of").isEqualTo(before);
          assertThat(outcome)
              .isInstanceOfAny(
                  AcquireResult.Busy.class, io.leasehold.lease.LeaseStoreException.class);
        }
        // The store still serves the key.
        granted(a, key).release();
      }
    }
  }

  @Test
  void aStoreAskingAgainForAKeyItHoldsIsBusyWithItsOwnRun() throws Exception {
    LeaseKey key = LeaseKey.of("acct", "ua-own-live");
    try (LeaseStore a = store("a")) {
      prime(a, key);
      Lease mine = granted(a, key);
      long drawn = lastFence();
      AcquireResult again = a.tryAcquire(AcquireRequest.of(key, "acct").withHolder("second"));
      assertThat(again)
          .as("no second run while the first is live")
          .isInstanceOfSatisfying(
              AcquireResult.Busy.class,
              busy ->
                  assertThat(busy.status().owner().orElseThrow().runId()).isEqualTo(mine.runId()));
      assertThat(lastFence()).isEqualTo(drawn);
      assertLeaseMatchesRow(mine);
      mine.release();
    }
  }

  @Test
  void aRememberedKeyAfterTheSequenceIsSetBackStillRisesAboveItsRow() throws Exception {
    LeaseKey key = LeaseKey.of("acct", "ua-setback");
    try (LeaseStore a = store("a")) {
      for (int i = 0; i < 5; i++) {
        prime(a, key);
      }
      long rowFence = ((Number) row(key).get(1)).longValue();
      // Back to the fence floor (the sweep's, which a store checks), below this key's row.
      db.database()
          .execute(
              "SELECT setval('leasehold_fence_seq', GREATEST(1, (SELECT COALESCE(max(fence), 1)"
                  + " FROM leasehold_lease_fence_floor)))");
      try {
        assertThat(lastFence()).isLessThan(rowFence);
        Lease next = granted(a, key);
        assertThat(next.fence()).isGreaterThan(rowFence);
        assertLeaseMatchesRow(next);
        try (LeaseStore b = store("b")) {
          assertThat(b.tryAcquire(key, "acct")).isInstanceOf(AcquireResult.Busy.class);
        }
        next.release();
      } finally {
        db.database()
            .execute(
                "SELECT setval('leasehold_fence_seq', (SELECT max(fence) FROM leasehold_lease))");
      }
    }
  }

  @Test
  void aRowDeletedWhileTheUpdateAloneWaitsForItIsGrantedByANewRowWithAHigherFence()
      throws Exception {
    LeaseKey key = LeaseKey.of("acct", "ua-deleted-while-waiting");
    try (LeaseStore a = store("a")) {
      prime(a, key);
      long old = ((Number) row(key).get(1)).longValue();
      AcquireResult r;
      try (Connection deleter = LockWaits.lockRow(db, key)) {
        var future =
            java.util.concurrent.CompletableFuture.supplyAsync(() -> a.tryAcquire(key, "acct"));
        LockWaits.awaitABackendBlockedBy(db, LockWaits.lockHolderId(deleter), "update alone");
        Sql.update(
            deleter,
            "DELETE FROM leasehold_lease WHERE account_id = ? AND session_id = ?",
            key.accountId(),
            key.sessionId());
        deleter.commit();
        r = future.get(10, TimeUnit.SECONDS);
      }
      System.out.println("update alone: deleted while waiting: " + r);
      assertThat(r).isInstanceOf(AcquireResult.Acquired.class);
      Lease l = ((AcquireResult.Acquired) r).lease();
      assertThat(l.fence()).isGreaterThan(old);
      assertLeaseMatchesRow(l);
      l.release();
    }
  }

  @Test
  void oneAcquireIsOneReportedAttemptWhicheverStatementsItSent() throws Exception {
    LeaseKey key = LeaseKey.of("acct", "ua-listener");
    List<String> reported = new java.util.concurrent.CopyOnWriteArrayList<>();
    io.leasehold.lease.LeaseStoreListener listener =
        new io.leasehold.lease.LeaseStoreListener() {
          @Override
          public void started(Operation operation) {
            reported.add("start " + operation);
          }

          @Override
          public void acquireEnded(AcquireOutcome outcome, Duration latency) {
            reported.add("end " + outcome);
          }

          @Override
          public void releaseEnded(ReleaseOutcome outcome, Duration latency) {
            reported.add("release " + outcome);
          }
        };
    try (LeaseStore a = store("a");
        LeaseStore b = store("b")) {
      prime(a, key);
      Lease theirs = granted(b, key);
      a.addListener(listener);
      // Update alone refused, then the full acquire: one attempt, Busy.
      assertThat(a.tryAcquire(key, "acct")).isInstanceOf(AcquireResult.Busy.class);
      assertThat(reported).containsExactly("start ACQUIRE", "end BUSY");
      reported.clear();
      theirs.release();
      Lease mine = granted(a, key);
      assertThat(reported).containsExactly("start ACQUIRE", "end ACQUIRED");
      reported.clear();
      mine.release();
      reported.clear();
      // A remembered, free key locked by a contender past the lock timeout: one attempt, Busy.
      try (LeaseStore c =
          LeaseStore.builder(db.dataSource())
              .accessPolicy(AccessPolicy.allowAll())
              .ttl(Duration.ofSeconds(5))
              .lockTimeout(Duration.ofMillis(100))
              .build()) {
        prime(c, key);
        c.addListener(listener);
        try (Connection locker = LockWaits.lockRow(db, key)) {
          assertThat(c.tryAcquire(key, "acct")).isInstanceOf(AcquireResult.Busy.class);
          locker.rollback();
        }
        assertThat(reported).containsExactly("start ACQUIRE", "end BUSY");
      }
    }
  }

  @Test
  void tooLateOnTheUpdateAloneReleasesTheRunItWasGranted() throws Exception {
    LeaseKey key = LeaseKey.of("acct", "ua-toolate");
    AtomicLong now = new AtomicLong(1_000_000_000L);
    // Every reading is a minute after the previous: a grant always arrives past its deadline.
    try (LeaseStore a =
        LeaseStore.builder(db.dataSource())
            .accessPolicy(AccessPolicy.allowAll())
            .ttl(Duration.ofSeconds(30))
            .ticker(() -> now.addAndGet(Duration.ofMinutes(1).toNanos()))
            .build()) {
      for (int i = 0; i < 3; i++) {
        AcquireResult r = a.tryAcquire(key, "acct");
        assertThat(r).isInstanceOf(AcquireResult.TooLate.class);
        AcquireResult.TooLate late = (AcquireResult.TooLate) r;
        List<Object> row = row(key);
        assertThat(row.get(0)).as("run of try %d", i).isEqualTo(late.token().runId());
        assertThat(((Number) row.get(1)).longValue()).isEqualTo(late.token().fence());
        assertThat(row.get(5)).as("released again").isNotNull();
      }
    }
  }

  @Test
  void eventsOnTheUpdateAloneSayAcquiredOrTakenOverAsTheRowWas() throws Exception {
    LeaseKey key = LeaseKey.of("acct", "ua-events");
    BlockingQueue<LeaseEvent> events = new LinkedBlockingQueue<>();
    try (LeaseStore a =
            LeaseStore.builder(db.dataSource())
                .accessPolicy(AccessPolicy.allowAll())
                .ttl(Duration.ofSeconds(30))
                .notifyChanges(true)
                .build();
        LeaseStore b =
            LeaseStore.builder(db.dataSource())
                .accessPolicy(AccessPolicy.allowAll())
                .ttl(Duration.ofSeconds(30))
                .notifyChanges(true)
                .build();
        LeaseWatcher w = LeaseWatcher.start(a, db.dataSource())) {
      w.subscribe(key, events::add);
      assertThat(next(events).kind()).isEqualTo(LeaseEvent.Kind.RESYNCED);
      prime(a, key);
      prime(b, key);
      drainUntil(events, 4);
      // a's lease expires; b (remembers the key, never found it taken) takes it over.
      Lease first = granted(a, key);
      assertThat(next(events).kind()).isEqualTo(LeaseEvent.Kind.ACQUIRED);
      expireRow(key, Duration.ofMillis(1));
      Lease second = granted(b, key);
      LeaseEvent e = nextNot(events, LeaseEvent.Kind.EXPIRED);
      assertThat(e.kind())
          .as("b took over a's expired lease")
          .isEqualTo(LeaseEvent.Kind.TAKEN_OVER);
      assertThat(second.fence()).isGreaterThan(first.fence());
      // Hold passes, then a acquires: a released row, so ACQUIRED.
      // A hold that ends at the lease's own start: over at once.
      second.releaseHolding(second.acquiredAt());
      e = nextNot(events, LeaseEvent.Kind.EXPIRED);
      assertThat(e.kind()).isEqualTo(LeaseEvent.Kind.RELEASED);
      Lease third = granted(a, key);
      e = nextNot(events, LeaseEvent.Kind.EXPIRED);
      assertThat(e.kind()).isEqualTo(LeaseEvent.Kind.ACQUIRED);
      assertThat(third.fence()).isGreaterThan(second.fence());
      assertLeaseMatchesRow(third);
      third.release();
    }
  }

  private static LeaseEvent next(BlockingQueue<LeaseEvent> events) throws InterruptedException {
    LeaseEvent e = events.poll(10, TimeUnit.SECONDS);
    assertThat(e).as("an event").isNotNull();
    return e;
  }

  private static LeaseEvent nextNot(BlockingQueue<LeaseEvent> events, LeaseEvent.Kind skip)
      throws InterruptedException {
    while (true) {
      LeaseEvent e = next(events);
      if (e.kind() != skip) {
        return e;
      }
    }
  }

  private static void drainUntil(BlockingQueue<LeaseEvent> events, int n)
      throws InterruptedException {
    for (int i = 0; i < n; i++) {
      next(events);
    }
  }
}
