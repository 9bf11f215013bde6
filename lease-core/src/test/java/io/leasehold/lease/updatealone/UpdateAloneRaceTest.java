package io.leasehold.lease.updatealone;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.lease.AccessPolicy;
import io.leasehold.lease.AcquireRequest;
import io.leasehold.lease.AcquireResult;
import io.leasehold.lease.Lease;
import io.leasehold.lease.LeaseOwner;
import io.leasehold.lease.LeaseStore;
import io.leasehold.lease.support.LeaseDatabase;
import io.leasehold.lease.support.RaceParts;
import io.leasehold.testing.SingleServerOnly;
import io.leasehold.testing.Sql;
import io.leasehold.testing.TestDataSources;
import io.leasehold.testing.TestDatabaseExtension;
import io.leasehold.testkit.ChildJvm;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Many stores (each with its own memory of keys, on a shared pool and on dedicated pools, one with
 * a takeover delay) and many threads race on keys every store was granted before, with short
 * one-shot leases that expire, releases and holds. Every change of the lease table is recorded by a
 * trigger with the row before and after, so single ownership (C1) and rising fences (C3) are
 * checked on what the database did, and every answer is checked against it.
 */
@SingleServerOnly(
    "a Citus coordinator always gets the full acquire; UpdateAloneTest's note in docs/scale-out.md")
class UpdateAloneRaceTest {
  @RegisterExtension static final TestDatabaseExtension db = LeaseDatabase.extension();

  private static final Duration DELAY = Duration.ofMillis(30);

  private final List<String> sent = new CopyOnWriteArrayList<>();
  private final List<AutoCloseable> closeables = new ArrayList<>();

  @BeforeEach
  void history() {
    RaceParts.installHistory(db, "lh");
  }

  @AfterEach
  void close() throws Exception {
    for (AutoCloseable c : closeables) {
      c.close();
    }
    RaceParts.dropHistoryTrigger(db, "lh");
  }

  private LeaseStore store(String name, boolean ownPool, boolean delayed, boolean recorded) {
    javax.sql.DataSource source = ownPool ? db.database().newPool(3) : db.dataSource();
    if (ownPool) {
      closeables.add((HikariDataSource) source);
    }
    var builder =
        LeaseStore.builder(recorded ? TestDataSources.recording(source, sent) : source)
            .accessPolicy(AccessPolicy.allowAll())
            .ttl(Duration.ofSeconds(2))
            .defaultHolder(name)
            .dedicatedPool(ownPool);
    if (delayed) {
      builder.takeoverDelay(DELAY);
    }
    LeaseStore s = builder.build();
    closeables.add(0, s);
    return s;
  }

  @Test
  void storesRacingOnKeysTheyAllRememberKeepOneOwnerAndRisingFences() throws Exception {
    List<LeaseKey> keys = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      keys.add(LeaseKey.of("acct", "ua-race-" + i));
    }
    // Same account, other sessions; and a long unicode key.
    keys.add(LeaseKey.of("acct", "ua-race-0 "));
    keys.add(LeaseKey.of("ü-acct-" + "x".repeat(100), "sess-ü-€-" + "y".repeat(110)));
    Map<LeaseKey, AtomicLong> grantedFloor = new ConcurrentHashMap<>();
    keys.forEach(k -> grantedFloor.put(k, new AtomicLong()));
    List<RaceRounds.Grant> grants = new CopyOnWriteArrayList<>();
    List<String> problems = new CopyOnWriteArrayList<>();
    AtomicInteger busy = new AtomicInteger();
    Map<String, AtomicInteger> busyStates = new ConcurrentHashMap<>();
    Map<String, Long> formCounts = new HashMap<>();
    AtomicLong extraDraws = new AtomicLong();
    for (int epoch = 0; epoch < 4; epoch++) {
      // Fresh stores each epoch: every store remembers every key as its own, never found taken.
      List<LeaseStore> stores =
          List.of(
              store("s0-shared-recorded", false, false, true),
              store("s1-shared", false, false, false),
              store("s2-own", true, false, false),
              store("s3-own-delayed", true, true, false),
              store("s4-shared-delayed", false, true, false));
      for (LeaseStore s : stores) {
        for (LeaseKey k : keys) {
          Lease l =
              s.acquire(AcquireRequest.of(k, k.accountId()), Duration.ofSeconds(5))
                  .acquiredLease()
                  .orElseThrow();
          grants.add(new RaceRounds.Grant(k, l.runId(), l.fence(), l.holder()));
          grantedFloor.get(k).accumulateAndGet(l.fence(), Math::max);
          l.release();
        }
      }
      sent.clear();
      long drawnBefore = lastValue();
      int grantsBefore = grants.size();
      RaceRounds.race(stores, keys, grantedFloor, grants, problems, busy, busyStates);
      sent.stream()
          .map(RaceRounds::form)
          .filter(f -> !f.equals("other"))
          .forEach(f -> formCounts.merge(f, 1L, Long::sum));
      extraDraws.addAndGet(lastValue() - drawnBefore - (grants.size() - grantsBefore));
      for (LeaseStore s : stores) {
        s.close();
      }
    }
    System.out.printf(
        "update alone: race: grants=%d busy=%d states=%s s0 forms=%s problems=%d%n",
        grants.size(), busy.get(), busyStates, formCounts, problems.size());
    problems.stream().limit(20).forEach(p -> System.out.println("update alone: problem: " + p));
    System.out.println(
        "update alone: race: fences drawn beyond one per grant: " + extraDraws.get());
    assertThat(problems).isEmpty();
    assertThat(formCounts.getOrDefault("update alone", 0L)).as("the fast path ran").isPositive();
    checkHistory(grants, Set.of("s3-own-delayed", "s4-shared-delayed"));
  }

  @Test
  void twoProcessesRacingWithFreshStoresKeepOneOwnerAndRisingFences() throws Exception {
    LeaseKey base = LeaseKey.of("xacct", "ua-xproc");
    List<LeaseKey> keys = RaceParts.keys(base.accountId(), base.sessionId(), 3);
    List<HikariDataSource> pools =
        List.of(db.database().newPool(8), db.database().newPool(3), db.database().newPool(3));
    closeables.addAll(pools);
    try (ChildJvm child = LeaseDatabase.child(db, CrossProcessRaceMain.class, base, "3", "4")) {
      child.awaitLine("READY", 60);
      child.send("GO");
      List<RaceRounds.Grant> grants = new CopyOnWriteArrayList<>();
      List<String> problems = new CopyOnWriteArrayList<>();
      CrossProcessRaceMain.epochs(pools, "parent", keys, 4, grants, problems);
      String childGrants = child.awaitLine("GRANTS ", 300);
      String result = child.awaitLine("RESULT ", 60);
      System.out.println(
          "update alone: two processes: parent grants "
              + grants.size()
              + ", problems "
              + problems
              + "; child "
              + result);
      for (String g : childGrants.substring("GRANTS ".length()).split(",")) {
        if (!g.isEmpty()) {
          String[] p = g.split(":");
          grants.add(
              new RaceRounds.Grant(null, UUID.fromString(p[0]), Long.parseLong(p[1]), "child"));
        }
      }
      assertThat(problems).isEmpty();
      assertThat(result.split(" ", 4)[2]).as("child problems: %s", result).isEqualTo("0");
      checkHistory(grants, Set.of());
    }
  }

  private static long lastValue() throws Exception {
    return ((Number)
            Sql.query(db.dataSource(), "SELECT last_value FROM leasehold_fence_seq").get(0).get(0))
        .longValue();
  }

  /** C1 and C3 on every grant the database recorded; every client grant is one of them. */
  private static void checkHistory(List<RaceRounds.Grant> clientGrants, Set<String> delayedHolders)
      throws Exception {
    List<List<Object>> rows =
        Sql.query(
            db.dataSource(),
            "SELECT id, op, account_id, session_id, old_run, old_fence, old_expires, old_released,"
                + " new_run, new_fence, new_holder, new_acquired, new_took_over"
                + " FROM lh_history WHERE op = 'I' OR old_run <> new_run ORDER BY id");
    List<String> violations = new ArrayList<>();
    Map<String, Long> lastFence = new HashMap<>();
    Map<UUID, Long> dbGrants = new HashMap<>();
    for (List<Object> r : rows) {
      String key = r.get(2) + "/" + r.get(3);
      long fence = ((Number) r.get(9)).longValue();
      dbGrants.put((UUID) r.get(8), fence);
      Long prev = lastFence.put(key, fence);
      if (prev != null && fence <= prev) {
        violations.add(
            "C3: " + key + " fence " + fence + " after " + prev + " (id " + r.get(0) + ")");
      }
      if ("U".equals(r.get(1))) {
        long oldFence = ((Number) r.get(5)).longValue();
        if (fence <= oldFence) {
          violations.add("C3: " + key + " fence " + fence + " over old " + oldFence);
        }
        Instant oldExpires = ((Timestamp) r.get(6)).toInstant();
        Timestamp oldReleased = (Timestamp) r.get(7);
        Instant acquired = ((Timestamp) r.get(11)).toInstant();
        boolean tookOver = (Boolean) r.get(12);
        if (oldReleased != null && oldExpires.equals(oldReleased.toInstant())) {
          if (tookOver) {
            violations.add("took_over on a released row: id " + r.get(0));
          }
          continue; // a plain release: acquirable at once
        }
        Instant acquirable = oldExpires;
        if (oldReleased == null) {
          if (!tookOver) {
            violations.add("TAKEN_OVER not recorded for an expired row: id " + r.get(0));
          }
          if (delayedHolders.contains((String) r.get(10))) {
            acquirable = acquirable.plus(DELAY);
          }
        } else if (tookOver) {
          violations.add("took_over on a held-then-released row: id " + r.get(0));
        }
        if (acquired.isBefore(acquirable)) {
          violations.add(
              "C1: "
                  + key
                  + " granted at "
                  + acquired
                  + " to "
                  + r.get(10)
                  + " but acquirable only at "
                  + acquirable
                  + " (old released "
                  + oldReleased
                  + ", id "
                  + r.get(0)
                  + ")");
        }
      }
    }
    for (RaceRounds.Grant g : clientGrants) {
      Long f = dbGrants.get(g.run());
      if (f == null || f != g.fence()) {
        violations.add("client grant not in the table: " + g + " db fence " + f);
      }
    }
    System.out.printf(
        "update alone: history: db grants=%d client grants=%d violations=%d%n",
        rows.size(), clientGrants.size(), violations.size());
    violations.stream().limit(20).forEach(v -> System.out.println("update alone: violation: " + v));
    assertThat(violations).isEmpty();
  }

  @Test
  void moreKeysThanTheStoreRemembersThenContentionOnTheEarlyOnes() throws Exception {
    LeaseStore a = store("a-recorded", false, false, true);
    LeaseStore b = store("b", true, false, false);
    int n = 4_200;
    List<LeaseKey> keys = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      keys.add(LeaseKey.of("cyc", "k" + i));
    }
    for (int round = 0; round < 2; round++) {
      for (LeaseKey k : keys) {
        a.tryAcquire(k, "cyc").acquiredLease().orElseThrow().release();
      }
    }
    sent.clear();
    List<RaceRounds.Grant> grants = new CopyOnWriteArrayList<>();
    for (int i : new int[] {0, 1, 95, 96, 97, 4_095, 4_096, 4_199}) {
      LeaseKey k = keys.get(i);
      Lease theirs = b.tryAcquire(k, "cyc").acquiredLease().orElseThrow();
      grants.add(new RaceRounds.Grant(k, theirs.runId(), theirs.fence(), "b"));
      AcquireResult r = a.tryAcquire(k, "cyc");
      assertThat(r).as("key %d held by b", i).isInstanceOf(AcquireResult.Busy.class);
      LeaseOwner o = ((AcquireResult.Busy) r).status().owner().orElseThrow();
      assertThat(o.runId()).isEqualTo(theirs.runId());
      assertThat(o.fence()).isEqualTo(theirs.fence());
      theirs.release();
      Lease mine = a.tryAcquire(k, "cyc").acquiredLease().orElseThrow();
      grants.add(new RaceRounds.Grant(k, mine.runId(), mine.fence(), "a-recorded"));
      assertThat(mine.fence()).isGreaterThan(theirs.fence());
      mine.release();
    }
    System.out.println("update alone: cycle statements sent by a after the cycle: " + sent.size());
    checkHistory(grants, Set.of());
  }
}
