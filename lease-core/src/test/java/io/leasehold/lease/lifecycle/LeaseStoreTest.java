package io.leasehold.lease.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.LeaseLostException;
import io.leasehold.lease.AccessDeniedException;
import io.leasehold.lease.AccessPolicy;
import io.leasehold.lease.AcquireRequest;
import io.leasehold.lease.AcquireResult;
import io.leasehold.lease.Lease;
import io.leasehold.lease.LeaseLoss;
import io.leasehold.lease.LeaseSchema;
import io.leasehold.lease.LeaseStatus;
import io.leasehold.lease.LeaseStore;
import io.leasehold.lease.LeaseStoreException;
import io.leasehold.lease.ReleaseResult;
import io.leasehold.lease.RenewResult;
import io.leasehold.lease.Ticker;
import io.leasehold.lease.support.FakeTicker;
import io.leasehold.lease.support.LeaseDatabase;
import io.leasehold.lease.support.LockWaits;
import io.leasehold.testing.TestDatabaseExtension;
import java.sql.Connection;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The lease store's single-run behaviour: CONTRACT C1, C3, C4, C5, C7, C8. */
class LeaseStoreTest {
  @RegisterExtension static final TestDatabaseExtension db = LeaseDatabase.extension();

  private static final AtomicInteger KEYS = new AtomicInteger();
  private LeaseStore store;
  private LeaseKey key;

  @BeforeEach
  void setUp() {
    store = LeaseStore.builder(db.dataSource()).accessPolicy(AccessPolicy.allowAll()).build();
    key = LeaseKey.of("acct", "session-" + KEYS.incrementAndGet());
  }

  @AfterEach
  void tearDown() {
    store.close();
  }

  private Lease acquire(LeaseStore s, LeaseKey k) {
    AcquireResult r = s.tryAcquire(k, "acct");
    assertThat(r).isInstanceOf(AcquireResult.Acquired.class);
    return ((AcquireResult.Acquired) r).lease();
  }

  /** Moves a lease's expiry into the past by database time, as if its run had stopped renewing. */
  private void expireInDatabase(LeaseKey k) {
    db.database()
        .execute(
            "UPDATE leasehold_lease SET expires_at = statement_timestamp() - interval '1 second'"
                + " WHERE account_id = '"
                + k.accountId()
                + "' AND session_id = '"
                + k.sessionId()
                + "'");
  }

  @Test
  void acquireGrantsTokenAndStatusShowsTheOwner() {
    Lease lease = acquire(store, key);
    assertThat(lease.fence()).isPositive();
    assertThat(lease.expiresAt()).isAfter(lease.acquiredAt());
    assertThat(lease.token()).isEqualTo(new FencingToken(key, lease.fence(), lease.runId()));

    LeaseStatus status = store.status(key, "app");
    assertThat(status.state()).isEqualTo(LeaseStatus.State.HELD);
    assertThat(status.owner().orElseThrow().runId()).isEqualTo(lease.runId());
    assertThat(status.owner().orElseThrow().fence()).isEqualTo(lease.fence());
    assertThat(status.owner().orElseThrow().holder()).startsWith("pid ");
    assertThat(status.remaining()).isPositive().isLessThanOrEqualTo(store.ttl());
  }

  @Test
  void liveLeaseCannotBeTakenAndTheLoserLearnsWhoHoldsIt() {
    Lease lease = acquire(store, key);
    AcquireResult second = store.tryAcquire(AcquireRequest.of(key, "acct").withHolder("browser"));
    assertThat(second)
        .isInstanceOfSatisfying(
            AcquireResult.Busy.class,
            busy -> {
              assertThat(busy.status().state()).isEqualTo(LeaseStatus.State.HELD);
              assertThat(busy.status().owner().orElseThrow().runId()).isEqualTo(lease.runId());
              assertThat(busy.status().owner().orElseThrow().expiresAt())
                  .isEqualTo(lease.expiresAt());
            });
  }

  @Test
  void releaseFreesTheKeyAndReacquireDrawsAHigherFence() {
    Lease first = acquire(store, key);
    assertThat(first.release().outcome()).isEqualTo(ReleaseResult.Outcome.RELEASED);
    assertThat(first.release().outcome()).isEqualTo(ReleaseResult.Outcome.NOT_HELD);
    assertThat(store.status(key, "app").state()).isEqualTo(LeaseStatus.State.FREE);
    assertThatThrownBy(first::token).isInstanceOf(LeaseLostException.class);

    Lease second = acquire(store, key);
    assertThat(second.fence()).isGreaterThan(first.fence());
    assertThat(second.runId()).isNotEqualTo(first.runId());
  }

  @Test
  void afterExpiryAnotherRunTakesOverAndTheOldRunCanNeitherRenewNorRelease() {
    Lease old = acquire(store, key);
    expireInDatabase(key);
    assertThat(store.status(key, "app").state()).isEqualTo(LeaseStatus.State.FREE);

    Lease newer = acquire(store, key);
    assertThat(newer.fence()).isGreaterThan(old.fence());

    RenewResult lateRenew = old.renew();
    assertThat(lateRenew.renewed()).isFalse();
    assertThat(old.isLost()).isTrue();
    assertThat(old.loss().orElseThrow().reason()).isEqualTo(LeaseLoss.Reason.RENEWAL_REFUSED);
    assertThat(old.release().outcome()).isEqualTo(ReleaseResult.Outcome.NOT_HELD);
    assertThat(store.release(old.identity(), "app").outcome())
        .isEqualTo(ReleaseResult.Outcome.NOT_HELD);

    LeaseStatus status = store.status(key, "app");
    assertThat(status.state()).isEqualTo(LeaseStatus.State.HELD);
    assertThat(status.owner().orElseThrow().runId()).isEqualTo(newer.runId());
    assertThat(status.owner().orElseThrow().expiresAt()).isEqualTo(newer.expiresAt());
  }

  @Test
  void expiredRunCannotResurrectItselfEvenIfNobodyTookOver() {
    Lease lease = acquire(store, key);
    expireInDatabase(key);
    assertThat(lease.renew().renewed()).isFalse();
    assertThat(store.release(lease.identity(), "app").outcome())
        .isEqualTo(ReleaseResult.Outcome.NOT_HELD);
    assertThat(store.status(key, "app").state()).isEqualTo(LeaseStatus.State.FREE);
  }

  @Test
  void renewExtendsByDatabaseTime() {
    Lease lease = acquire(store, key);
    RenewResult r = lease.renew();
    assertThat(r.renewed()).isTrue();
    assertThat(r.expiresAt().orElseThrow()).isAfterOrEqualTo(lease.acquiredAt().plus(store.ttl()));
    assertThat(r.expiresAt().orElseThrow())
        .isEqualTo(r.databaseNow().orElseThrow().plus(store.ttl()));
    assertThat(lease.expiresAt()).isEqualTo(r.expiresAt().orElseThrow());
  }

  @Test
  void forgedTokenReleasesNothing() {
    Lease lease = acquire(store, key);
    FencingToken forgedRun = new FencingToken(key, lease.fence(), UUID.randomUUID());
    FencingToken forgedFence = new FencingToken(key, lease.fence() + 1, lease.runId());
    assertThat(store.release(forgedRun, "app").outcome()).isEqualTo(ReleaseResult.Outcome.NOT_HELD);
    assertThat(store.release(forgedFence, "app").outcome())
        .isEqualTo(ReleaseResult.Outcome.NOT_HELD);
    assertThat(store.status(key, "app").owner().orElseThrow().runId()).isEqualTo(lease.runId());
    assertThat(store.status(key, "app").isHeld()).isTrue();
  }

  @Test
  void takeoverDelayKeepsAnExpiredKeyUnacquirableButNotAReleasedOne() {
    try (LeaseStore delayed =
        LeaseStore.builder(db.dataSource())
            .accessPolicy(AccessPolicy.allowAll())
            .takeoverDelay(Duration.ofHours(1))
            .build()) {
      Lease lease = acquire(delayed, key);
      expireInDatabase(key);
      LeaseStatus status = delayed.status(key, "app");
      assertThat(status.state()).isEqualTo(LeaseStatus.State.DRAINING);
      assertThat(status.acquirableAt()).isAfter(status.databaseNow().plus(Duration.ofMinutes(59)));
      assertThat(delayed.tryAcquire(key, "acct")).isInstanceOf(AcquireResult.Busy.class);
      // The delay is decided by the store that acquires: one without it may take over.
      Lease next = acquire(store, key);
      assertThat(next.fence()).isGreaterThan(lease.fence());
      // A clean release is not an expiry: no delay.
      assertThat(next.release().outcome()).isEqualTo(ReleaseResult.Outcome.RELEASED);
      assertThat(delayed.status(key, "app").state()).isEqualTo(LeaseStatus.State.FREE);
      acquire(delayed, key);
    }
  }

  @Test
  void answerArrivingAfterTheLocalDeadlineIsNotStartedAndIsReleased() {
    FakeTicker ticker = new FakeTicker();
    AtomicInteger reads = new AtomicInteger();
    Ticker slowNetwork =
        () -> {
          // The second reading (after the answer) comes a whole TTL after the first.
          if (reads.incrementAndGet() == 2) {
            ticker.advance(Duration.ofSeconds(30));
          }
          return ticker.read();
        };
    try (LeaseStore s =
        LeaseStore.builder(db.dataSource())
            .accessPolicy(AccessPolicy.allowAll())
            .ticker(slowNetwork)
            .build()) {
      AcquireResult r = s.tryAcquire(key, "acct");
      assertThat(r)
          .isInstanceOfSatisfying(
              AcquireResult.TooLate.class,
              late ->
                  assertThat(late.release())
                      .hasValueSatisfying(rel -> assertThat(rel.released()).isTrue()));
      assertThat(s.status(key, "app").state()).isEqualTo(LeaseStatus.State.FREE);
    }
  }

  @Test
  void localDeadlineRefusesTheTokenWithoutHearingFromTheDatabase() {
    FakeTicker ticker = new FakeTicker();
    try (LeaseStore s =
        LeaseStore.builder(db.dataSource())
            .accessPolicy(AccessPolicy.allowAll())
            .ticker(ticker)
            .build()) {
      Lease lease = acquire(s, key);
      AtomicInteger notified = new AtomicInteger();
      lease.onLost(loss -> notified.incrementAndGet());
      ticker.advance(Duration.ofSeconds(26)); // 30 s TTL minus 3 s margin = 27 s
      assertThat(lease.token()).isNotNull();
      ticker.advance(Duration.ofSeconds(1));
      assertThatThrownBy(lease::token).isInstanceOf(LeaseLostException.class);
      assertThat(lease.loss().orElseThrow().reason()).isEqualTo(LeaseLoss.Reason.DEADLINE_PASSED);
      assertThat(notified).hasValue(1);
      assertThat(lease.whenLost()).isDone();
      // Locally lost: a renewal must not extend it in the database.
      assertThat(lease.renew().renewed()).isFalse();
    }
  }

  @Test
  void accessDenialNeverTouchesTheTable() {
    // This store points at a table that does not exist: any SQL would fail with
    // LeaseStoreException, so AccessDeniedException proves no statement was sent.
    try (LeaseStore guarded =
        LeaseStore.builder(db.dataSource())
            .schema(new LeaseSchema("no_such_table", "no_such_seq"))
            .accessPolicy(AccessPolicy.callerOwnsAccount())
            .build()) {
      assertThatThrownBy(() -> guarded.tryAcquire(key, "someone-else"))
          .isInstanceOfSatisfying(
              AccessDeniedException.class,
              e -> {
                assertThat(e.caller()).isEqualTo("someone-else");
                assertThat(e.key()).isEqualTo(key);
              });
      assertThatThrownBy(() -> guarded.tryAcquire(key, "acct"))
          .isInstanceOf(LeaseStoreException.class);
    }
  }

  /** A side transaction holding {@code key}'s lease row locked. */
  private Connection lockedRow() throws Exception {
    return LockWaits.lockRow(db, key);
  }

  @Test
  void aRowLockHeldByAContenderIsBusy() throws Exception {
    acquire(store, key).release();
    try (Connection side = lockedRow()) {
      // CONTRACT C18: a contender is taking the key and never commits; the acquire waits for it
      // no longer than the lock timeout, and answers Busy.
      assertThat(store.tryAcquire(key, "acct")).isInstanceOf(AcquireResult.Busy.class);
      side.rollback();
    }
    // The failed statement left nothing behind on the pooled connections.
    assertThat(store.tryAcquire(key, "acct")).isInstanceOf(AcquireResult.Acquired.class);
  }

  @Test
  void differentKeysNeverBlockEachOther() throws Exception {
    acquire(store, key).release();
    LeaseKey other = LeaseKey.of("acct", key.sessionId() + "-other");
    try (Connection side = lockedRow()) {
      // With the default 1 s lock timeout, a wait would fail this acquire instead.
      Lease lease = acquire(store, other);
      assertThat(lease.renew().renewed()).isTrue();
      assertThat(lease.release().outcome()).isEqualTo(ReleaseResult.Outcome.RELEASED);
      side.rollback();
    }
  }

  @Test
  void noRowIsLeftInATransaction() throws Exception {
    acquire(store, key);
    assertThat(
            db.database()
                .queryOne(
                    "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
                        + " AND state LIKE 'idle in transaction%'",
                    Long.class))
        .isZero();
  }
}
