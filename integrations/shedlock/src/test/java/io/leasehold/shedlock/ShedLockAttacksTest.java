package io.leasehold.shedlock;

import static io.leasehold.shedlock.TestThreads.WAIT_SECONDS;
import static io.leasehold.shedlock.TestThreads.await;
import static io.leasehold.shedlock.TestThreads.on;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.InMemoryFenceGuard;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.TokenVerifier;
import io.leasehold.lease.AccessPolicy;
import io.leasehold.lease.AcquireRequest;
import io.leasehold.lease.AcquireResult;
import io.leasehold.lease.Lease;
import io.leasehold.lease.LeaseOwner;
import io.leasehold.lease.LeaseSchema;
import io.leasehold.lease.LeaseStatus;
import io.leasehold.lease.LeaseStore;
import io.leasehold.lease.ReleaseResult;
import io.leasehold.lease.RenewResult;
import io.leasehold.testing.RowLocks;
import io.leasehold.testing.TestDatabaseExtension;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import net.javacrumbs.shedlock.core.DefaultLockingTaskExecutor;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.core.LockingTaskExecutor;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.support.KeepAliveLockProvider;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Red team, issue 46 item 10: attacks on the ShedLock provider's extend checks, on {@code
 * Lease.releaseHolding}'s bound, and on {@link FencedLock#current()}'s ownership. Written from
 * docs/shedlock.md, docs/lease-store.md and the public javadoc only.
 */
class ShedLockAttacksTest {
  @RegisterExtension
  static final TestDatabaseExtension db =
      TestDatabaseExtension.withTemplate("shedlock", ds -> LeaseSchema.defaults().apply(ds));

  private static final String ACCOUNT = "scheduler";

  /** Long lock waits, so a test can line statements up behind a row lock it holds. */
  private final LeaseStore store =
      LeaseStore.builder(db.dataSource())
          .accessPolicy(AccessPolicy.allowAll())
          .ttl(Duration.ofSeconds(60))
          .lockTimeout(Duration.ofSeconds(20))
          .statementTimeout(Duration.ofSeconds(25))
          .build();

  private final LeaseholdLockProvider provider = LeaseholdLockProvider.of(store, ACCOUNT);
  private final LockingTaskExecutor executor = new DefaultLockingTaskExecutor(provider);
  private final ExecutorService pool = Executors.newSingleThreadExecutor();
  private final ExecutorService other = Executors.newSingleThreadExecutor();
  private final ExecutorService third = Executors.newSingleThreadExecutor();
  private final List<AutoCloseable> closers = new ArrayList<>();

  /**
   * The keep-alive provider's scheduler: its extension runs when a test calls {@code extendNow}.
   */
  private final ManualScheduler scheduler = new ManualScheduler();

  @AfterEach
  void close() throws Exception {
    pool.shutdownNow();
    other.shutdownNow();
    third.shutdownNow();
    scheduler.shutdownNow();
    for (AutoCloseable c : closers) {
      c.close();
    }
    store.close();
  }

  private static LockConfiguration config(String name, Duration atMost, Duration atLeast) {
    return new LockConfiguration(Instant.now(), name, atMost, atLeast);
  }

  private LeaseStatus status(String name) {
    return store.status(LeaseKey.of(ACCOUNT, name), ACCOUNT);
  }

  private FencedLock lock(String name, Duration atMost, Duration atLeast) {
    return (FencedLock) provider.lock(config(name, atMost, atLeast)).orElseThrow();
  }

  /** What an action returned, or the runtime exception it threw: the attacks report either. */
  private static Object outcome(java.util.function.Supplier<?> action) {
    try {
      return action.get();
    } catch (RuntimeException e) {
      return e;
    }
  }

  /** What {@code FencedLock.current()} answers on the pooled task thread, or what it threw. */
  private Object currentOnPool() throws Exception {
    return on(pool, () -> outcome(FencedLock::current));
  }

  /**
   * A policy that allows everything but renewals, which {@code renewal} decides (or throws for).
   */
  private static AccessPolicy renewalsDecidedBy(java.util.function.BooleanSupplier renewal) {
    return new AccessPolicy() {
      @Override
      public boolean permits(String caller, LeaseKey key) {
        return true;
      }

      @Override
      public boolean permits(String caller, LeaseKey key, Operation operation) {
        return operation != Operation.RENEW || renewal.getAsBoolean();
      }
    };
  }

  /**
   * Adds to {@code wrong} unless {@code lock} refuses {@code what} with IllegalArgumentException.
   */
  private static void expectRefused(
      String what, java.util.function.Supplier<Optional<SimpleLock>> lock, List<String> wrong) {
    try {
      wrong.add(what + " accepted: " + lock.get());
    } catch (IllegalArgumentException expected) {
      // the refusal asked for
    } catch (RuntimeException e) {
      wrong.add(what + " threw " + e);
    }
  }

  // ---------------------------------------------------------------------------------------------
  // 1. extend is checked like lock, and a refused extend leaves the lock as it was.
  // ---------------------------------------------------------------------------------------------

  @Test
  void everyOutOfRangeExtendIsRefusedWithIllegalArgumentAndLeavesTheLockHeldUnchangedAndUnlockable()
      throws Exception {
    String name = "red-extend-range";
    Duration[][] bad = {
      {null, Duration.ZERO},
      {Duration.ofSeconds(1), null},
      {Duration.ZERO, Duration.ZERO},
      {Duration.ofSeconds(-1), Duration.ZERO},
      {Duration.ofNanos(999_999), Duration.ZERO},
      {Duration.ofHours(24).plusNanos(1), Duration.ZERO},
      {Duration.ofHours(25), Duration.ZERO},
      {Duration.ofSeconds(Long.MAX_VALUE, 999_999_999), Duration.ZERO},
      {Duration.ofSeconds(1), Duration.ofSeconds(2)},
      {Duration.ofSeconds(1), Duration.ofSeconds(1).plusNanos(1)},
      {Duration.ofSeconds(1), Duration.ofDays(3650)},
      {Duration.ofSeconds(1), Duration.ofNanos(-1)},
      {Duration.ofHours(24), Duration.ofHours(24).plusNanos(1)},
      {Duration.ofSeconds(Long.MIN_VALUE), Duration.ofSeconds(Long.MIN_VALUE)},
    };
    List<String> outcomes = new CopyOnWriteArrayList<>();
    AtomicReference<LeaseOwner> before = new AtomicReference<>();
    AtomicReference<FencedLock> taskLock = new AtomicReference<>();
    on(
        pool,
        () -> {
          // A @SchedulerLock task (lockAtLeastFor 2 s) that tries every bad extend of its own lock.
          executor.executeWithLock(
              (Runnable)
                  () -> {
                    FencedLock lock = FencedLock.current().orElseThrow();
                    taskLock.set(lock);
                    long fence = lock.token().fence();
                    before.set(status(name).owner().orElseThrow());
                    for (Duration[] pair : bad) {
                      try {
                        Optional<SimpleLock> extended = lock.extend(pair[0], pair[1]);
                        outcomes.add(
                            "ACCEPTED extend(" + pair[0] + ", " + pair[1] + ") -> " + extended);
                      } catch (IllegalArgumentException expected) {
                        // refused as promised
                      } catch (RuntimeException other) {
                        outcomes.add("extend(" + pair[0] + ", " + pair[1] + ") threw " + other);
                      }
                    }
                    // Unchanged: same run, same expiry in the database, still current, token given.
                    LeaseStatus after = status(name);
                    if (after.state() != LeaseStatus.State.HELD
                        || !after.owner().orElseThrow().runId().equals(before.get().runId())
                        || !after
                            .owner()
                            .orElseThrow()
                            .expiresAt()
                            .equals(before.get().expiresAt())) {
                      outcomes.add("lock changed: " + after);
                    }
                    if (lock.token().fence() != fence
                        || FencedLock.current().orElseThrow() != lock) {
                      outcomes.add("current()/token changed");
                    }
                  },
              config(name, Duration.ofSeconds(30), Duration.ofSeconds(2)));
          return null;
        });
    assertThat(outcomes)
        .as("extends not refused with IllegalArgumentException, or the lock changed")
        .isEmpty();
    // ShedLock's executor unlocked the lock as it was: the key drains for lockAtLeastFor (2 s)
    // after
    // the start, no longer, and the task's thread keeps nothing.
    LeaseStatus unlocked = status(name);
    assertThat(unlocked.state()).isNotEqualTo(LeaseStatus.State.HELD);
    assertThat(unlocked.acquirableAt()).isBeforeOrEqualTo(before.get().acquiredAt().plusSeconds(2));
    assertThat(on(pool, FencedLock::current)).isEmpty();
    assertThatThrownBy(taskLock.get()::token)
        .isInstanceOf(io.leasehold.fencing.LeaseLostException.class);
  }

  @Test
  void theBoundariesOfExtendAreAcceptedExactlyAsLockAcceptsThem() {
    // 1 ms..24 h and lockAtLeastFor == lockAtMostFor are legal for lock; so must they be for
    // extend.
    FencedLock a = lock("red-extend-edge-a", Duration.ofSeconds(30), Duration.ZERO);
    FencedLock a2 = (FencedLock) a.extend(Duration.ofHours(24), Duration.ofHours(24)).orElseThrow();
    LeaseStatus held = status("red-extend-edge-a");
    assertThat(held.state()).isEqualTo(LeaseStatus.State.HELD);
    assertThat(Duration.between(held.databaseNow(), held.owner().orElseThrow().expiresAt()))
        .isLessThanOrEqualTo(Duration.ofHours(24));
    // The old lock is invalid: it can neither unlock nor extend again.
    assertThatThrownBy(a::unlock).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> a.extend(Duration.ofSeconds(1), Duration.ZERO))
        .isInstanceOf(IllegalStateException.class);
    assertThat(status("red-extend-edge-a").owner().orElseThrow().expiresAt())
        .isEqualTo(held.owner().orElseThrow().expiresAt());
    // Unlock with a 24 h lockAtLeastFor: the hold ends no later than the lease would have.
    a2.unlock();
    LeaseStatus drained = status("red-extend-edge-a");
    assertThat(drained.acquirableAt()).isBeforeOrEqualTo(held.owner().orElseThrow().expiresAt());
  }

  // ---------------------------------------------------------------------------------------------
  // 2. Lease.releaseHolding never holds a key past the lease's expiry, even racing a renewal that
  //    shortens the lease. The test holds the lease row locked from its own connection, lines a
  //    shortening renew and a releaseHolding up behind it (in that order), then lets them go.
  // ---------------------------------------------------------------------------------------------

  private Connection blocker(LeaseKey key) throws Exception {
    return RowLocks.hold(
        db.dataSource().getConnection(),
        "SELECT 1 FROM leasehold_lease WHERE account_id = ? AND session_id = ? FOR UPDATE",
        key.accountId(),
        key.sessionId());
  }

  private int lockWaiters() throws Exception {
    try (Connection c = db.dataSource().getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query ILIKE '%leasehold_lease%'"
                    + " AND pid <> pg_backend_pid()");
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      return rs.getInt(1);
    }
  }

  /** Polls a condition a real event makes true (a statement queued on a row lock); bounded. */
  private static void until(String what, java.util.function.BooleanSupplier condition)
      throws Exception {
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > end) {
        throw new AssertionError("never happened: " + what);
      }
      Thread.sleep(5);
    }
  }

  private int waitersUnchecked() {
    try {
      return lockWaiters();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  @Test
  void releaseHoldingRacingARenewalThatShortensTheLeaseNeverHoldsTheKeyPastTheLeasesExpiry()
      throws Exception {
    LeaseKey key = LeaseKey.of(ACCOUNT, "red-hold-race");
    Lease lease =
        ((AcquireResult.Acquired)
                store.tryAcquire(AcquireRequest.of(key, ACCOUNT).oneShot(Duration.ofHours(1))))
            .lease();
    Instant oldExpiry = lease.expiresAt(); // about an hour away: a legal `until` right now

    Connection block = blocker(key);
    Future<RenewResult> renew = other.submit(() -> lease.renew(Duration.ofSeconds(5)));
    until("the renewal queues on the row lock", () -> waitersUnchecked() >= 1);
    AtomicReference<Thread> holdThread = new AtomicReference<>();
    Future<Object> hold =
        third.submit(
            () -> {
              holdThread.set(Thread.currentThread());
              try {
                return lease.releaseHolding(oldExpiry);
              } catch (RuntimeException refused) {
                return refused;
              }
            });
    until(
        "the hold queues too (in the database, or behind the renewal in the client)",
        () -> {
          Thread t = holdThread.get();
          return waitersUnchecked() >= 2
              || hold.isDone()
              || (t != null
                  && (t.getState() == Thread.State.BLOCKED
                      || t.getState() == Thread.State.WAITING));
        });
    block.commit();
    block.close();

    RenewResult renewed = renew.get(WAIT_SECONDS, TimeUnit.SECONDS);
    Object held = hold.get(WAIT_SECONDS, TimeUnit.SECONDS);
    LeaseStatus s = store.status(key, ACCOUNT);
    String report = "renew=" + renewed + " hold=" + held + " status=" + s;
    if (renewed.renewed()) {
      // The lease's expiry became now + 5 s: no hold may keep the key until about an hour from now.
      Instant newExpiry = renewed.expiresAt().orElseThrow();
      // Concretely: once the database clock is past that expiry, a new run must be able to acquire.
      until(
          "the database clock passes the renewed expiry",
          () -> store.databaseTime().isAfter(newExpiry));
      AcquireResult next =
          store.tryAcquire(AcquireRequest.of(key, ACCOUNT).oneShot(Duration.ofSeconds(10)));
      report +=
          " | at "
              + store.databaseTime()
              + ", after the renewed expiry, a new run's tryAcquire -> "
              + next.getClass().getSimpleName();
      if (next instanceof AcquireResult.Acquired a) {
        a.lease().release();
      }
      assertThat(s.acquirableAt()).as(report).isBeforeOrEqualTo(newExpiry);
    } else {
      assertThat(s.acquirableAt()).as(report).isBeforeOrEqualTo(oldExpiry);
    }
  }

  @Test
  void releaseHoldingRacingAShorteningRenewalWithoutHelpNeverHoldsTheKeyPastTheLeasesExpiry()
      throws Exception {
    // The same race with nothing lined up: two threads released by a barrier, many rounds.
    int rounds = 150;
    List<String> past = new ArrayList<>();
    int renewedThenHeld = 0;
    for (int i = 0; i < rounds; i++) {
      LeaseKey key = LeaseKey.of(ACCOUNT, "red-hold-race-free-" + i);
      Lease lease =
          ((AcquireResult.Acquired)
                  store.tryAcquire(AcquireRequest.of(key, ACCOUNT).oneShot(Duration.ofHours(1))))
              .lease();
      Instant oldExpiry = lease.expiresAt();
      CyclicBarrier start = new CyclicBarrier(2);
      Future<RenewResult> renew =
          other.submit(
              () -> {
                start.await();
                return lease.renew(Duration.ofSeconds(5));
              });
      Future<Object> hold =
          third.submit(
              () -> {
                start.await();
                try {
                  return lease.releaseHolding(oldExpiry);
                } catch (RuntimeException refused) {
                  return refused;
                }
              });
      RenewResult renewed = renew.get(WAIT_SECONDS, TimeUnit.SECONDS);
      Object held = hold.get(WAIT_SECONDS, TimeUnit.SECONDS);
      LeaseStatus s = store.status(key, ACCOUNT);
      if (renewed.renewed() && held instanceof ReleaseResult r && r.released()) {
        renewedThenHeld++;
        if (s.acquirableAt().isAfter(renewed.expiresAt().orElseThrow())) {
          past.add(
              i
                  + ": renewed to "
                  + renewed.expiresAt().orElseThrow()
                  + " but held until "
                  + s.acquirableAt());
        }
      }
    }
    assertThat(past)
        .as(
            "rounds where the renewal committed first and the hold then kept the key past the lease's expiry ("
                + renewedThenHeld
                + " rounds renewed then released)")
        .isEmpty();
  }

  @Test
  void releaseHoldingAfterAShorteningRenewIsRefusedForTheOldExpiryAndReleasesNothing() {
    LeaseKey key = LeaseKey.of(ACCOUNT, "red-hold-after-shorten");
    Lease lease =
        ((AcquireResult.Acquired)
                store.tryAcquire(AcquireRequest.of(key, ACCOUNT).oneShot(Duration.ofHours(1))))
            .lease();
    Instant oldExpiry = lease.expiresAt();
    assertThat(lease.renew(Duration.ofSeconds(30)).renewed()).isTrue();
    assertThatThrownBy(() -> lease.releaseHolding(oldExpiry))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> lease.releaseHolding(lease.expiresAt().plusNanos(1000)))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> lease.releaseHolding(null))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(store.status(key, ACCOUNT).state()).isEqualTo(LeaseStatus.State.HELD);
    assertThat(lease.isLost()).isFalse();
    ReleaseResult r = lease.releaseHolding(lease.expiresAt());
    assertThat(r.released()).isTrue();
    assertThat(store.status(key, ACCOUNT).acquirableAt()).isBeforeOrEqualTo(lease.expiresAt());
  }

  /** Runs {@code task} on the pooled thread, locked by ShedLock's executor over {@code p}. */
  private void runLockedOnPool(LockProvider p, LockConfiguration config, Runnable task)
      throws Exception {
    on(
        pool,
        () -> {
          new DefaultLockingTaskExecutor(p).executeWithLock(task, config);
          return null;
        });
  }

  /** A store of its own on the test database, where "ops" may force a release. */
  private static LeaseStore storeWithOperators() {
    return LeaseStore.builder(db.dataSource())
        .accessPolicy(AccessPolicy.allowAll().withAdministrators(java.util.Set.of("ops")))
        .build();
  }

  @Test
  void aRunsLateReleaseHoldingAfterAnOperatorsForceReleaseDoesNotBlockTheKeyAgain()
      throws Exception {
    try (LeaseStore s = storeWithOperators()) {
      LeaseKey key = LeaseKey.of(ACCOUNT, "red-hold-after-force");
      Lease lease =
          ((AcquireResult.Acquired)
                  s.tryAcquire(AcquireRequest.of(key, ACCOUNT).oneShot(Duration.ofHours(1))))
              .lease();
      assertThat(s.admin().forceRelease(key, "ops", "red team: stuck job").released()).isTrue();
      assertThat(s.status(key, ACCOUNT).state()).isEqualTo(LeaseStatus.State.FREE);
      Object late = outcome(() -> lease.releaseHolding(lease.expiresAt()));
      LeaseStatus after = s.status(key, ACCOUNT);
      assertThat(after.state())
          .as("late releaseHolding -> " + late + "; " + after)
          .isEqualTo(LeaseStatus.State.FREE);
      assertThat(s.tryAcquire(AcquireRequest.of(key, ACCOUNT).oneShot(Duration.ofSeconds(10))))
          .isInstanceOf(AcquireResult.Acquired.class);
    }
  }

  @Test
  void aShedLockTaskUnlockingAfterAnOperatorsForceReleaseDoesNotHoldTheKeyForLockAtLeastFor()
      throws Exception {
    try (LeaseStore s = storeWithOperators()) {
      LeaseholdLockProvider p = LeaseholdLockProvider.of(s, ACCOUNT);
      String name = "red-unlock-after-force";
      LeaseKey key = LeaseKey.of(ACCOUNT, name);
      runLockedOnPool(
          p,
          config(name, Duration.ofHours(1), Duration.ofMinutes(30)),
          () -> s.admin().forceRelease(key, "ops", "red team: operator frees the job's lock"));
      LeaseStatus after = s.status(key, ACCOUNT);
      assertThat(after.state())
          .as("after the task's unlock: " + after)
          .isEqualTo(LeaseStatus.State.FREE);
      assertThat(on(pool, FencedLock::current)).isEmpty();
    }
  }

  @Test
  void aLockWhoseLeaseWasShortenedBehindItsBackStillUnlocksWithoutHoldingPastTheLeasesExpiry()
      throws Exception {
    // FencedLock.lease() is public; a job renews the lease itself, shorter, then ShedLock unlocks.
    String name = "red-lease-shortened";
    LeaseKey key = LeaseKey.of(ACCOUNT, name);
    AtomicReference<Instant> shortened = new AtomicReference<>();
    Object result =
        on(
            pool,
            () -> {
              try {
                executor.executeWithLock(
                    (Runnable)
                        () -> {
                          FencedLock lock = FencedLock.current().orElseThrow();
                          RenewResult r = lock.lease().renew(Duration.ofSeconds(10));
                          shortened.set(r.expiresAt().orElseThrow());
                        },
                    config(name, Duration.ofHours(1), Duration.ofMinutes(30)));
                return "ok";
              } catch (Throwable t) {
                return t;
              }
            });
    LeaseStatus after = status(name);
    String report = "task -> " + result + "; " + after;
    System.out.println("[red] lease shortened behind the lock: " + report);
    // Safety: nothing holds the key past the (shortened) lease's expiry, and the pooled thread
    // keeps
    // nothing. (Observed: ShedLock's unlock throws IllegalArgumentException and the key stays HELD
    // until the shortened expiry; availability only, reported as an observation, not a break.)
    assertThat(after.acquirableAt()).as(report).isBeforeOrEqualTo(shortened.get());
    assertThat(currentOnPool()).as(report).isEqualTo(Optional.empty());
  }

  // ---------------------------------------------------------------------------------------------
  // 3. A refused extend: by the access policy (a renewal the policy refuses).
  // ---------------------------------------------------------------------------------------------

  @Test
  void anExtendTheAccessPolicyRefusesLeavesTheLockToUnlockAndTheUnlockFreesTheKey()
      throws Exception {
    AtomicBoolean renewAllowed = new AtomicBoolean(true);
    AccessPolicy policy = renewalsDecidedBy(renewAllowed::get);
    try (LeaseStore s = LeaseStore.builder(db.dataSource()).accessPolicy(policy).build()) {
      LeaseholdLockProvider p = LeaseholdLockProvider.of(s, ACCOUNT);
      String name = "red-extend-denied";
      FencedLock lock =
          (FencedLock) p.lock(config(name, Duration.ofHours(1), Duration.ZERO)).orElseThrow();
      LeaseOwner before = s.status(LeaseKey.of(ACCOUNT, name), ACCOUNT).owner().orElseThrow();
      renewAllowed.set(false);
      Object outcome = outcome(() -> lock.extend(Duration.ofHours(2), Duration.ZERO));
      // Whatever extend answered, the database lease was not renewed ...
      LeaseStatus mid = s.status(LeaseKey.of(ACCOUNT, name), ACCOUNT);
      assertThat(mid.owner().orElseThrow().expiresAt())
          .as("extend -> " + outcome)
          .isEqualTo(before.expiresAt());
      // ... and the lock is still the one to unlock: after unlock the key is not held for the hour.
      lock.unlock();
      LeaseStatus after = s.status(LeaseKey.of(ACCOUNT, name), ACCOUNT);
      assertThat(after.state())
          .as("extend -> " + outcome + "; after unlock (lockAtLeastFor 0): " + after)
          .isEqualTo(LeaseStatus.State.FREE);
      assertThat(p.lock(config(name, Duration.ofSeconds(10), Duration.ZERO)))
          .as("the next run can lock")
          .isPresent();
    }
  }

  @Test
  void anExtendWhoseAccessPolicyThrowsLeavesTheLockToUnlockAndTheUnlockFreesTheKey()
      throws Exception {
    AtomicBoolean explode = new AtomicBoolean(false);
    AccessPolicy policy =
        renewalsDecidedBy(
            () -> {
              if (explode.get()) {
                throw new IllegalStateException("policy backend down");
              }
              return true;
            });
    try (LeaseStore s = LeaseStore.builder(db.dataSource()).accessPolicy(policy).build()) {
      LeaseholdLockProvider p = LeaseholdLockProvider.of(s, ACCOUNT);
      String name = "red-extend-policy-throws";
      LeaseKey key = LeaseKey.of(ACCOUNT, name);
      AtomicReference<Object> outcome = new AtomicReference<>();
      AtomicReference<LeaseOwner> before = new AtomicReference<>();
      runLockedOnPool(
          p,
          config(name, Duration.ofHours(1), Duration.ZERO),
          () -> {
            FencedLock lock = FencedLock.current().orElseThrow();
            before.set(s.status(key, ACCOUNT).owner().orElseThrow());
            explode.set(true);
            outcome.set(outcome(() -> lock.extend(Duration.ofHours(2), Duration.ZERO)));
          });
      LeaseStatus after = s.status(key, ACCOUNT);
      assertThat(after.owner().orElseThrow().runId()).isEqualTo(before.get().runId());
      assertThat(after.state())
          .as("extend -> " + outcome.get() + "; after the task's unlock: " + after)
          .isEqualTo(LeaseStatus.State.FREE);
      assertThat(on(pool, FencedLock::current)).isEmpty();
    }
  }

  @Test
  void anExtendThatFailsInTheDatabaseLeavesALockThatStillUnlocksAndHoldsNothingPastItsOldExpiry()
      throws Exception {
    // Default timeouts (ttl 30 s: lock_timeout 1 s): the renewal times out behind a row lock.
    try (LeaseStore s =
        LeaseStore.builder(db.dataSource()).accessPolicy(AccessPolicy.allowAll()).build()) {
      LeaseholdLockProvider p = LeaseholdLockProvider.of(s, ACCOUNT);
      String name = "red-extend-db-fails";
      LeaseKey key = LeaseKey.of(ACCOUNT, name);
      AtomicReference<Object> outcome = new AtomicReference<>();
      AtomicReference<Object> unlockOutcome = new AtomicReference<>();
      AtomicReference<LeaseOwner> before = new AtomicReference<>();
      AtomicReference<Connection> block = new AtomicReference<>();
      FencedLock lock =
          on(
              pool,
              () ->
                  (FencedLock)
                      p.lock(config(name, Duration.ofMinutes(10), Duration.ofSeconds(1)))
                          .orElseThrow());
      before.set(s.status(key, ACCOUNT).owner().orElseThrow());
      block.set(blocker(key));
      try {
        outcome.set(lock.extend(Duration.ofMinutes(20), Duration.ZERO));
      } catch (RuntimeException e) {
        outcome.set(e);
      } finally {
        block.get().rollback();
        block.get().close();
      }
      unlockOutcome.set(
          outcome(
              () -> {
                lock.unlock();
                return "unlocked";
              }));
      LeaseStatus after = s.status(key, ACCOUNT);
      String report =
          "extend -> " + outcome.get() + "; unlock -> " + unlockOutcome.get() + "; status " + after;
      System.out.println("[red] " + report);
      assertThat(unlockOutcome.get()).as(report).isEqualTo("unlocked");
      assertThat(after.acquirableAt()).as(report).isBeforeOrEqualTo(before.get().expiresAt());
      assertThat(currentOnPool()).as(report).isEqualTo(Optional.empty());
    }
  }

  // ---------------------------------------------------------------------------------------------
  // 4. Bad input to lock: a clear error, and nothing changes.
  // ---------------------------------------------------------------------------------------------

  @Test
  void badLockInputIsRefusedWithIllegalArgumentBeforeAnythingIsWritten() {
    List<String> wrong = new ArrayList<>();
    String[] names = {"x".repeat(129), "a\u0000b", "bad\uD800", "tab\tname", " "};
    for (String n : names) {
      expectRefused(
          "name " + n.codePoints().boxed().toList(),
          () -> provider.lock(config(n, Duration.ofSeconds(10), Duration.ZERO)),
          wrong);
    }
    Duration[] atMost = {
      Duration.ZERO,
      Duration.ofNanos(999_999),
      Duration.ofHours(24).plusNanos(1),
      Duration.ofDays(3650)
    };
    for (Duration d : atMost) {
      expectRefused(
          "lockAtMostFor " + d,
          () -> provider.lock(config("red-bad-len", d, Duration.ZERO)),
          wrong);
    }
    assertThat(wrong).isEmpty();
    assertThat(status("red-bad-len").owner())
        .as("nothing was written for the refused lengths")
        .isEmpty();
    assertThat(FencedLock.current()).isEmpty();
  }

  // ---------------------------------------------------------------------------------------------
  // 5. FencedLock.current() belongs to its task's lock.
  // ---------------------------------------------------------------------------------------------

  /** ShedLock's executor on a provider that is not Leasehold's (an application may have two). */
  private static final LockProvider OTHER_PROVIDER = cfg -> Optional.of(() -> {});

  private final InMemoryFenceGuard leakGuard =
      InMemoryFenceGuard.builder().verifier(TokenVerifier.trustEveryWriter()).build();
  private final List<String> leakWritten = new CopyOnWriteArrayList<>();

  @Test
  void aForgottenDirectLockIsNotHandedToALockedTaskOfAnotherProviderOnTheSamePooledThread()
      throws Exception {
    FencedLock forgotten =
        on(pool, () -> lock("red-forgotten", Duration.ofSeconds(30), Duration.ZERO));
    long fence = forgotten.token().fence();
    // The next task on the pooled thread is a ShedLock-locked task, but of another provider.
    LockingTaskExecutor otherExecutor = new DefaultLockingTaskExecutor(OTHER_PROVIDER);
    Object seen =
        answerUnderLock(
            pool,
            otherExecutor,
            "unrelated-job",
            () -> {
              try {
                Optional<FencedLock> cur = FencedLock.current();
                // The unrelated job writes under whatever current() handed it, as a job does.
                cur.ifPresent(
                    l ->
                        leakGuard.runFenced(
                            l,
                            () ->
                                leakWritten.add("unrelated-job under fence " + l.token().fence())));
                return cur;
              } catch (RuntimeException e) {
                return e;
              }
            });
    assertThat(leakWritten)
        .as("writes that went out under the forgotten lock's fence " + fence)
        .isEmpty();
    assertThat(seen)
        .as("another task saw (fence " + fence + "): " + seen)
        .satisfiesAnyOf(
            v -> assertThat(v).isEqualTo(Optional.empty()),
            v -> assertThat(v).isInstanceOf(IllegalStateException.class));
    forgotten.unlock();
  }

  @Test
  void aTaskThatThrowsLeavesNoLockOnItsPooledThreadAndTheKeyIsFree() throws Exception {
    AtomicReference<FencedLock> inside = new AtomicReference<>();
    Runnable failingJob =
        () -> {
          inside.set(FencedLock.current().orElseThrow());
          throw new IllegalStateException("job failed");
        };
    Object thrown =
        on(
            pool,
            () ->
                outcome(
                    () -> {
                      executor.executeWithLock(
                          failingJob, config("red-throws", Duration.ofSeconds(30), Duration.ZERO));
                      return null;
                    }));
    assertThat(thrown).isInstanceOf(IllegalStateException.class);
    assertThat(inside.get()).isNotNull();
    assertThat(on(pool, FencedLock::current)).isEmpty();
    assertThat(status("red-throws").state()).isEqualTo(LeaseStatus.State.FREE);
    assertThatThrownBy(() -> inside.get().token())
        .isInstanceOf(io.leasehold.fencing.LeaseLostException.class);
  }

  @Test
  void
      aKeepAliveExtensionOfTheOuterLockOnAnotherThreadKeepsTheInnerLockCurrentAndThenTheExtendedOuter()
          throws Exception {
    List<String> seen = new CopyOnWriteArrayList<>();
    CountDownLatch innerTaken = new CountDownLatch(1);
    CountDownLatch outerExtended = new CountDownLatch(1);
    AtomicReference<FencedLock> outer = new AtomicReference<>();
    Future<?> task =
        keptAliveOnPool(
            "red-nest-outer",
            () -> {
              outer.set(FencedLock.current().orElseThrow());
              try {
                executor.executeWithLock(
                    (Runnable)
                        () -> {
                          seen.add(
                              "inner:"
                                  + FencedLock.current().orElseThrow().lease().key().sessionId());
                          innerTaken.countDown();
                          await(outerExtended);
                          seen.add(
                              "innerAfterExtend:"
                                  + FencedLock.current().orElseThrow().lease().key().sessionId());
                        },
                    config("red-nest-inner", Duration.ofSeconds(30), Duration.ZERO));
              } catch (Throwable t) {
                seen.add("inner threw " + t);
              }
              FencedLock now = FencedLock.current().orElseThrow();
              seen.add(
                  "outerAfterInner:"
                      + now.lease().key().sessionId()
                      + ":replaced="
                      + (now != outer.get())
                      + ":sameFence="
                      + (now.token().fence() == outer.get().lease().fence()));
            });
    await(innerTaken);
    // Another thread, itself running a locked task of its own, runs the keep-alive extension.
    Object otherCurrent =
        answerUnderLock(
            other,
            executor,
            "red-nest-extender",
            () -> {
              FencedLock mine = FencedLock.current().orElseThrow();
              scheduler.extendNow();
              FencedLock after = FencedLock.current().orElseThrow();
              return after == mine ? "own" : "WRONG: " + after.lease().key();
            });
    outerExtended.countDown();
    task.get(WAIT_SECONDS, TimeUnit.SECONDS);
    assertThat(otherCurrent).isEqualTo("own");
    assertThat(seen)
        .containsExactly(
            "inner:red-nest-inner",
            "innerAfterExtend:red-nest-inner",
            "outerAfterInner:red-nest-outer:replaced=true:sameFence=true");
    assertThat(on(pool, FencedLock::current)).isEmpty();
    assertThat(on(other, FencedLock::current)).isEmpty();
    assertThat(status("red-nest-outer").state()).isEqualTo(LeaseStatus.State.FREE);
    assertThat(status("red-nest-inner").state()).isEqualTo(LeaseStatus.State.FREE);
  }

  /**
   * What {@code task} answers when it runs on {@code thread} as a task locked through {@code locks}
   * under the lock {@code name} (at most 30 s).
   */
  private static Object answerUnderLock(
      ExecutorService thread,
      LockingTaskExecutor locks,
      String name,
      java.util.function.Supplier<Object> task)
      throws Exception {
    return on(
        thread,
        () -> {
          AtomicReference<Object> answer = new AtomicReference<>();
          locks.executeWithLock(
              (Runnable) () -> answer.set(task.get()),
              config(name, Duration.ofSeconds(30), Duration.ZERO));
          return answer.get();
        });
  }

  /**
   * Starts {@code task} on the pooled thread, locked under {@code name} (at most 30 s) by a
   * keep-alive provider whose extension runs only when the test calls {@code
   * scheduler.extendNow()}.
   */
  private Future<?> keptAliveOnPool(String name, Runnable task) {
    LockingTaskExecutor keptAlive =
        new DefaultLockingTaskExecutor(new KeepAliveLockProvider(provider, scheduler));
    return pool.submit(
        () -> {
          keptAlive.executeWithLock(task, config(name, Duration.ofSeconds(30), Duration.ZERO));
          return null;
        });
  }

  @Test
  void aKeepAliveExtensionOnAThreadThatRunsAnotherTaskNeitherLeaksIntoThatTaskNorStealsIt()
      throws Exception {
    CountDownLatch taken = new CountDownLatch(1);
    CountDownLatch extended = new CountDownLatch(1);
    AtomicReference<Long> fenceBefore = new AtomicReference<>();
    AtomicReference<Object> afterExtend = new AtomicReference<>();
    Future<?> task =
        keptAliveOnPool(
            "red-kept",
            () -> {
              fenceBefore.set(FencedLock.current().orElseThrow().token().fence());
              taken.countDown();
              await(extended);
              FencedLock now = FencedLock.current().orElseThrow();
              afterExtend.set(now.lease().key().sessionId() + ":" + now.token().fence());
            });
    await(taken);
    // The periodic extension runs on a thread that is itself inside a locked task of its own.
    Object seenByOther =
        answerUnderLock(
            other,
            executor,
            "red-kept-bystander",
            () -> {
              scheduler.extendNow();
              return FencedLock.current().orElseThrow().lease().key().sessionId();
            });
    extended.countDown();
    task.get(WAIT_SECONDS, TimeUnit.SECONDS);
    assertThat(seenByOther).isEqualTo("red-kept-bystander");
    assertThat(afterExtend.get()).isEqualTo("red-kept:" + fenceBefore.get());
    assertThat(on(other, FencedLock::current)).isEmpty();
    assertThat(on(pool, FencedLock::current)).isEmpty();
    assertThat(status("red-kept").state()).isEqualTo(LeaseStatus.State.FREE);
  }

  @Test
  void unlockRacingExtendEndsTheLockExactlyOnceEveryTime() throws Exception {
    int rounds = 60;
    List<String> problems = new ArrayList<>();
    for (int i = 0; i < rounds; i++) {
      String name = "red-race-" + i;
      FencedLock lock = on(pool, () -> lock(name, Duration.ofHours(1), Duration.ofMinutes(30)));
      Instant acquiredAt = lock.lease().acquiredAt();
      CyclicBarrier start = new CyclicBarrier(2);
      Future<Object> unlock =
          other.submit(
              () -> {
                start.await();
                return outcome(
                    () -> {
                      lock.unlock();
                      return "unlocked";
                    });
              });
      Future<Object> extend =
          third.submit(
              () -> {
                start.await();
                return outcome(() -> lock.extend(Duration.ofSeconds(5), Duration.ZERO));
              });
      Object u = unlock.get(WAIT_SECONDS, TimeUnit.SECONDS);
      Object e = extend.get(WAIT_SECONDS, TimeUnit.SECONDS);
      LeaseStatus s = status(name);
      boolean unlocked = "unlocked".equals(u);
      boolean extended = e instanceof Optional<?> o && o.isPresent();
      if (unlocked == extended) {
        problems.add(i + ": unlock=" + u + " extend=" + e + " status=" + s.state());
        continue;
      }
      if (unlocked) {
        if (s.state() == LeaseStatus.State.HELD
            || s.acquirableAt().isAfter(acquiredAt.plus(Duration.ofMinutes(30)))) {
          problems.add(i + ": unlocked but " + s + "; extend=" + e);
        }
        Object cur = currentOnPool();
        if (!Optional.empty().equals(cur)) {
          problems.add(i + ": after unlock the task thread still sees " + cur);
        }
      } else {
        FencedLock next = (FencedLock) ((Optional<?>) e).orElseThrow();
        if (s.state() != LeaseStatus.State.HELD || next.token().fence() != lock.lease().fence()) {
          problems.add(i + ": extended but status " + s.state());
        }
        if (!(u instanceof IllegalStateException)) {
          problems.add(i + ": the losing unlock answered " + u);
        }
        Instant extendedExpiry = s.owner().orElseThrow().expiresAt();
        next.unlock();
        if (status(name).state() == LeaseStatus.State.HELD
            || status(name).acquirableAt().isAfter(extendedExpiry)) {
          problems.add(i + ": the extended lock's unlock left the key HELD");
        }
        Object cur = currentOnPool();
        if (!Optional.empty().equals(cur)) {
          problems.add(i + ": after the extended lock's unlock the task thread sees " + cur);
        }
      }
    }
    assertThat(problems).isEmpty();
  }

  @Test
  void noWriteGoesOutUnderAnUnlockedOrTakenOverLock() throws Exception {
    InMemoryFenceGuard guard =
        InMemoryFenceGuard.builder().verifier(TokenVerifier.trustEveryWriter()).build();
    FencedLock first = lock("red-stale", Duration.ofSeconds(30), Duration.ZERO);
    FencingToken copied = first.token();
    FencedLock extended =
        (FencedLock) first.extend(Duration.ofSeconds(30), Duration.ZERO).orElseThrow();
    extended.unlock();
    assertThatThrownBy(first::token).isInstanceOf(io.leasehold.fencing.WriteRefusedException.class);
    assertThatThrownBy(extended::token)
        .isInstanceOf(io.leasehold.fencing.WriteRefusedException.class);
    FencedLock second = on(other, () -> lock("red-stale", Duration.ofSeconds(30), Duration.ZERO));
    assertThat(second.token().fence()).isGreaterThan(copied.fence());
    List<String> written = new CopyOnWriteArrayList<>();
    guard.runFenced(second, () -> written.add("second"));
    assertThatThrownBy(() -> guard.runFenced(first, () -> written.add("first")))
        .isInstanceOf(io.leasehold.fencing.WriteRefusedException.class);
    assertThatThrownBy(() -> guard.runFenced(() -> copied, () -> written.add("copied")))
        .isInstanceOf(io.leasehold.fencing.WriteRefusedException.class);
    assertThat(written).containsExactly("second");
    second.unlock();
  }
}
