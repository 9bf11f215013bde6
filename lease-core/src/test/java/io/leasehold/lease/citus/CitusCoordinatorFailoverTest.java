package io.leasehold.lease.citus;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.fencing.LeaseKey;
import io.leasehold.lease.AccessPolicy;
import io.leasehold.lease.AcquireRequest;
import io.leasehold.lease.AcquireResult;
import io.leasehold.lease.Lease;
import io.leasehold.lease.LeaseSchema;
import io.leasehold.lease.LeaseStore;
import io.leasehold.lease.LeaseStoreException;
import io.leasehold.testing.Contenders;
import io.leasehold.testing.TestDatabase;
import io.leasehold.testing.TestDatabaseExtension;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import javax.sql.DataSource;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * CONTRACT C1 and C3 across a failover of the Citus coordinator to its hot standby, the form of
 * coordinator high availability Citus has: a streaming replica of the coordinator, promoted when
 * the coordinator dies. Four runs hand three keys around through a store on the coordinator; the
 * test takes the third just before the kill, for 15 s, and never releases it. Mid-run the
 * coordinator is killed ({@code SIGKILL}) and its standby promoted; the runs go on through a store
 * on the promoted standby. No key is granted while a run holds it and its lease is live in database
 * time (the held key not before its expiry), each key's fences strictly increase across the
 * failover, and every fence the promoted standby grants is above every fence granted before it: the
 * fence sequence lives on the coordinator, and the value its WAL records is up to 32 ahead of what
 * it handed out, so the standby resumes past them once it has received that record (a key's own
 * fence rises anyway: its next is above its row's, on the worker).
 *
 * <p>Runs on the coordinator named by {@code LEASEHOLD_CITUS_URL} when {@value #STANDBY_ENV} names
 * the JDBC URL of a hot standby of that coordinator (a streaming replica, registered nowhere in
 * Citus) and {@value #FAILOVER_ENV} a command that, given {@code failover}, kills the coordinator,
 * promotes the standby and returns once it accepts writes (docs/scale-out.md). Skipped otherwise,
 * with one line. Use a cluster of its own: the coordinator stays down afterwards.
 */
class CitusCoordinatorFailoverTest {
  @RegisterExtension
  static final TestDatabaseExtension db =
      TestDatabaseExtension.citus(ds -> LeaseSchema.defaults().apply(ds));

  /** The JDBC URL of the coordinator's hot standby. */
  static final String STANDBY_ENV = "LEASEHOLD_CITUS_STANDBY_URL";

  /** The command that kills the coordinator and promotes the standby. */
  static final String FAILOVER_ENV = "LEASEHOLD_CITUS_FAILOVER";

  private static final int THREADS = 4;
  private static final LeaseKey HELD = LeaseKey.of("failover", "held");
  private static final List<LeaseKey> KEYS =
      List.of(LeaseKey.of("failover", "a"), LeaseKey.of("failover", "b"), HELD);
  private static final Duration TTL = Duration.ofSeconds(5);

  /** The held key's TTL: it is live well past the promotion. */
  private static final Duration HELD_TTL = Duration.ofSeconds(15);

  /** Grants of each key the promoted standby must make before the runs stop. */
  private static final int GRANTS_AFTER = 3;

  /** A grant as a run saw it: its key, fence, start, and whether the promoted standby made it. */
  private record Grant(LeaseKey key, long fence, Instant acquiredAt, boolean promoted) {
    Grant(Lease lease, boolean promoted) {
      this(lease.key(), lease.fence(), lease.acquiredAt(), promoted);
    }
  }

  /** The store the runs use, and whether it is the promoted standby's. */
  private record Target(LeaseStore store, boolean promoted) {}

  /** One key as the runs know it: the lease a run holds until it starts its release. */
  private static final class KeyState {
    Lease held;
    long lastFence;
  }

  @Test
  void noKeyIsHeldTwiceAndFencesKeepRisingAcrossAFailoverToTheStandby() throws Exception {
    TestDatabase coordinator = db.database(); // skipped without a coordinator first
    String standbyUrl = System.getenv(STANDBY_ENV);
    Assumptions.assumeTrue(
        standbyUrl != null && !standbyUrl.isBlank(),
        "Coordinator failover test skipped: set "
            + STANDBY_ENV
            + " to the JDBC URL of a hot standby of the coordinator of LEASEHOLD_CITUS_URL and "
            + FAILOVER_ENV
            + " to a command that kills the coordinator and promotes the standby, see"
            + " docs/scale-out.md");
    CoordinatorCommand failover =
        CoordinatorCommand.fromEnv(
            "Coordinator failover test",
            FAILOVER_ENV,
            "given failover, kills the coordinator of LEASEHOLD_CITUS_URL and promotes its standby");
    String user = coordinator.server().user();
    String password = coordinator.server().password();
    DataSource standby = TestDatabase.connect(standbyUrl, user, password);
    assertThat(queryLong(standby, "SELECT CASE WHEN pg_is_in_recovery() THEN 1 ELSE 0 END"))
        .as("%s names a standby in recovery", STANDBY_ENV)
        .isEqualTo(1);

    Map<LeaseKey, KeyState> states = new HashMap<>();
    KEYS.forEach(k -> states.put(k, new KeyState()));
    GrantLog grants = new GrantLog();
    List<String> violations = Collections.synchronizedList(new ArrayList<>());
    AtomicInteger busy = new AtomicInteger();
    AtomicInteger errors = new AtomicInteger();
    AtomicReference<String> firstError = new AtomicReference<>();
    CountDownLatch switched = new CountDownLatch(1);
    Contenders runs = null;
    LeaseStore promotedStore = null;
    // Without a pool: a run whose coordinator is gone fails at once instead of waiting for a
    // pooled connection, so the pause measured is the failover's.
    try (LeaseStore primary =
        LeaseStore.builder(TestDatabase.connect(coordinator.jdbcUrl(), user, password))
            .accessPolicy(AccessPolicy.allowAll())
            .ttl(TTL)
            .build()) {
      AtomicReference<Target> target = new AtomicReference<>(new Target(primary, false));
      AtomicBoolean heldTaken = new AtomicBoolean();
      runs =
          Contenders.repeat(
              THREADS,
              () -> {
                Target t = target.get();
                LeaseKey key = KEYS.get(ThreadLocalRandom.current().nextInt(KEYS.size()));
                if (key.equals(HELD) && !heldTaken.get()) {
                  return;
                }
                try {
                  AcquireResult r = t.store().tryAcquire(key, "failover");
                  if (r instanceof AcquireResult.Acquired a) {
                    KeyState state = states.get(key);
                    granted(state, a.lease(), violations);
                    grants.add(new Grant(a.lease(), t.promoted()));
                    synchronized (state) {
                      state.held = null;
                    }
                    a.lease().release();
                  } else {
                    busy.incrementAndGet();
                  }
                } catch (LeaseStoreException e) {
                  // The coordinator is gone: a release's outcome is unknown, its lease left
                  // to its expiry. Wait for the promoted standby rather than spin.
                  errors.incrementAndGet();
                  firstError.compareAndSet(null, e.getMessage());
                  if (!t.promoted()) {
                    switched.await(50, TimeUnit.MILLISECONDS);
                  }
                }
              });
      grants.await(g -> g.size() > 10, Duration.ofSeconds(60), "grants by the coordinator");
      // Held by the test from just before the kill and never released: the promoted standby
      // must not grant it before its expiry.
      Lease held =
          ((AcquireResult.Acquired)
                  primary.tryAcquire(AcquireRequest.of(HELD, "test").withTtl(HELD_TTL)))
              .lease();
      granted(states.get(HELD), held, violations);
      grants.add(new Grant(held, false));
      heldTaken.set(true);
      long beforeKill = System.nanoTime();
      String failedOver = failover.run("failover");
      long promotedAfter = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - beforeKill);
      long sequenceAtPromotion = queryLong(standby, "SELECT last_value FROM leasehold_fence_seq");
      promotedStore =
          LeaseStore.builder(standby).accessPolicy(AccessPolicy.allowAll()).ttl(TTL).build();
      long switchedAt = System.nanoTime();
      target.set(new Target(promotedStore, true));
      switched.countDown();
      grants.await(
          g ->
              KEYS.stream()
                  .allMatch(
                      k ->
                          g.stream().filter(x -> x.promoted() && x.key().equals(k)).count()
                              >= GRANTS_AFTER),
          TTL.plus(Duration.ofSeconds(120)),
          GRANTS_AFTER + " grants of each key by the promoted standby");
      long firstGrantAfter = grants.firstPromotedNanos() - beforeKill;
      long firstGrantAfterSwitch = grants.firstPromotedNanos() - switchedAt;
      runs.stop(Duration.ofSeconds(60));

      List<Grant> all = grants.all();
      long maxBefore =
          all.stream().filter(g -> !g.promoted()).mapToLong(Grant::fence).max().orElseThrow();
      long minAfter =
          all.stream().filter(Grant::promoted).mapToLong(Grant::fence).min().orElseThrow();
      System.out.printf(
          "coordinator failover: %s; %d grants before (highest fence %d), %d after (lowest %d,"
              + " highest %d); the promoted standby's sequence at %d; held key's fence %d, expiry"
              + " %s, next granted at %s; first grant %d ms after the kill (the failover command returned after %d"
              + " ms, the runs switched to the standby %d ms before that grant); per key, last"
              + " fence before -> first after: %s; busy %d, errors %d%s%n",
          failedOver,
          all.stream().filter(g -> !g.promoted()).count(),
          maxBefore,
          all.stream().filter(Grant::promoted).count(),
          minAfter,
          all.stream().filter(Grant::promoted).mapToLong(Grant::fence).max().orElseThrow(),
          sequenceAtPromotion,
          held.fence(),
          held.expiresAt(),
          all.stream()
              .filter(g -> g.promoted() && g.key().equals(HELD))
              .map(Grant::acquiredAt)
              .min(Instant::compareTo)
              .orElseThrow(),
          TimeUnit.NANOSECONDS.toMillis(firstGrantAfter),
          promotedAfter,
          TimeUnit.NANOSECONDS.toMillis(firstGrantAfterSwitch),
          acrossTheFailover(all),
          busy.get(),
          errors.get(),
          firstError.get() == null ? "" : " (first: " + firstError.get() + ")");
      assertThat(violations).isEmpty();
      assertThat(sequenceAtPromotion).isGreaterThanOrEqualTo(maxBefore);
      assertThat(minAfter).isGreaterThan(maxBefore);
    } finally {
      if (runs != null) {
        runs.close();
      }
      if (promotedStore != null) {
        promotedStore.close();
      }
    }
  }

  /**
   * Records a grant of the key: a violation if a run still holds it with a lease live at the new
   * grant's start (database time), or if its fence is not above the key's last.
   */
  private static void granted(KeyState state, Lease lease, List<String> violations) {
    synchronized (state) {
      Lease before = state.held;
      if (before != null && before.expiresAt().isAfter(lease.acquiredAt())) {
        violations.add(
            lease.key()
                + " granted with fence "
                + lease.fence()
                + " at "
                + lease.acquiredAt()
                + " while fence "
                + before.fence()
                + " was held until "
                + before.expiresAt());
      }
      if (lease.fence() <= state.lastFence) {
        violations.add(lease.key() + ": fence " + lease.fence() + " after " + state.lastFence);
      }
      state.held = lease;
      state.lastFence = Math.max(state.lastFence, lease.fence());
    }
  }

  /** The grants the runs saw, in order; waits on them without polling. */
  private static final class GrantLog {
    private final List<Grant> grants = new ArrayList<>();
    private long firstPromotedNanos;

    synchronized void add(Grant grant) {
      if (grant.promoted() && firstPromotedNanos == 0) {
        firstPromotedNanos = System.nanoTime();
      }
      grants.add(grant);
      notifyAll();
    }

    synchronized void await(Predicate<List<Grant>> done, Duration timeout, String what)
        throws InterruptedException {
      long deadline = System.nanoTime() + timeout.toNanos();
      while (!done.test(grants)) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          throw new AssertionError(
              "no " + what + " within " + timeout + ": " + grants.size() + " grants in all");
        }
        TimeUnit.NANOSECONDS.timedWait(this, left);
      }
    }

    synchronized List<Grant> all() {
      return List.copyOf(grants);
    }

    synchronized long firstPromotedNanos() {
      return firstPromotedNanos;
    }
  }

  /** Per key, its last fence granted before the failover and its first after. */
  private static String acrossTheFailover(List<Grant> all) {
    StringBuilder out = new StringBuilder();
    for (LeaseKey key : KEYS) {
      long last =
          all.stream()
              .filter(g -> g.key().equals(key) && !g.promoted())
              .mapToLong(Grant::fence)
              .max()
              .orElse(0);
      long first =
          all.stream()
              .filter(g -> g.key().equals(key) && g.promoted())
              .mapToLong(Grant::fence)
              .min()
              .orElse(0);
      out.append(out.isEmpty() ? "" : ", ").append(key.sessionId()).append(' ');
      out.append(last).append(" -> ").append(first);
    }
    return out.toString();
  }

  private static long queryLong(DataSource ds, String sql) throws SQLException {
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      assertThat(rs.next()).as("a row from %s", sql).isTrue();
      return rs.getLong(1);
    }
  }
}
