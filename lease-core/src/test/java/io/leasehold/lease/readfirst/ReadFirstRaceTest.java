package io.leasehold.lease.readfirst;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.lease.AccessPolicy;
import io.leasehold.lease.LeaseStatus;
import io.leasehold.lease.LeaseStore;
import io.leasehold.lease.support.LeaseDatabase;
import io.leasehold.lease.support.LockWaits;
import io.leasehold.lease.support.RaceParts;
import io.leasehold.testing.SingleServerOnly;
import io.leasehold.testing.Sql;
import io.leasehold.testing.TestDataSources;
import io.leasehold.testing.TestDatabaseExtension;
import io.leasehold.testkit.ChildJvm;
import java.sql.Connection;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Red team 51: stores that found every key taken (so each answers with a read of the row first)
 * race on a few keys with short one-shot leases, on a shared pool and on pools of their own, one
 * with a takeover delay, while a meddler locks rows from another connection; and the same across
 * two JVMs. A trigger records every change of the lease table, so one owner at a time (C1) and
 * rising fences (C3) are checked on what the database did, and every Busy's owner against it.
 */
@SingleServerOnly(
    "a Citus coordinator always gets the full acquire; the read first is one PostgreSQL's")
class ReadFirstRaceTest {
  @RegisterExtension static final TestDatabaseExtension db = LeaseDatabase.extension();

  private static final Duration DELAY = Duration.ofMillis(30);

  private final List<String> sent = new CopyOnWriteArrayList<>();
  private final List<AutoCloseable> closeables = new ArrayList<>();

  @BeforeEach
  void history() {
    RaceParts.installHistory(db, "rf");
  }

  @AfterEach
  void close() throws Exception {
    for (AutoCloseable c : closeables) {
      c.close();
    }
    RaceParts.dropHistoryTrigger(db, "rf");
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

  private static long lastValue() throws Exception {
    return ((Number)
            Sql.query(db.dataSource(), "SELECT last_value FROM leasehold_fence_seq").get(0).get(0))
        .longValue();
  }

  @Test
  void storesThatFoundEveryKeyTakenRaceWithOneOwnerAndRisingFences() throws Exception {
    List<LeaseKey> keys = RaceParts.keys("racct", "rf-race", 3);
    List<ReadFirstRounds.Grant> grants = new CopyOnWriteArrayList<>();
    List<ReadFirstRounds.Refusal> refusals = new CopyOnWriteArrayList<>();
    List<String> problems = new CopyOnWriteArrayList<>();
    Map<String, Integer> forms = new HashMap<>();
    long extraDraws = 0;
    AtomicInteger locks = new AtomicInteger();
    for (int epoch = 0; epoch < 3; epoch++) {
      List<LeaseStore> stores =
          List.of(
              store("s0-shared-recorded", false, false, true),
              store("s1-shared", false, false, false),
              store("s2-own", true, false, false),
              store("s3-own-delayed", true, true, false),
              store("s4-shared-delayed", false, true, false));
      ReadFirstRounds.primeTaken(store("blocker", false, false, false), stores, keys);
      sent.clear();
      long drawnBefore = lastValue();
      int grantsBefore = grants.size();
      AtomicBoolean stop = new AtomicBoolean();
      Thread meddler = meddler(keys, stop, locks, problems);
      ReadFirstRounds.race(stores, keys, 8, 60, grants, refusals, problems);
      stop.set(true);
      meddler.join();
      extraDraws += lastValue() - drawnBefore - (grants.size() - grantsBefore);
      for (String sql : sent) {
        String f =
            ReadFirstCasesTest.isRead(sql)
                ? "read"
                : sql.contains("UNION ALL")
                    ? "full"
                    : sql.contains("SET run_id") ? "update alone" : "other";
        forms.merge(f, 1, Integer::sum);
      }
      for (LeaseStore s : stores) {
        s.close();
      }
    }
    Map<String, Integer> states = new HashMap<>();
    refusals.forEach(r -> states.merge(r.status().state().name(), 1, Integer::sum));
    System.out.printf(
        "read first: race: grants=%d refusals=%d %s s0 forms=%s meddler locks=%d"
            + " fences drawn beyond one per grant=%d problems=%d%n",
        grants.size(), refusals.size(), states, forms, locks.get(), extraDraws, problems.size());
    problems.stream().limit(20).forEach(p -> System.out.println("read first: problem: " + p));
    assertThat(problems).isEmpty();
    assertThat(forms.getOrDefault("read", 0)).as("the read ran").isPositive();
    checkHistory(grants, refusals, Set.of("s3-own-delayed", "s4-shared-delayed"), Set.of());
  }

  @Test
  void storesThatFoundEveryKeyTakenRaceWhileRowsAreEditedBehindTheirBacks() throws Exception {
    List<LeaseKey> keys = RaceParts.keys("eacct", "rf-edit", 3);
    List<ReadFirstRounds.Grant> grants = new CopyOnWriteArrayList<>();
    List<ReadFirstRounds.Refusal> refusals = new CopyOnWriteArrayList<>();
    List<String> problems = new CopyOnWriteArrayList<>();
    AtomicInteger edits = new AtomicInteger();
    for (int epoch = 0; epoch < 2; epoch++) {
      List<LeaseStore> stores =
          List.of(
              store("e0-shared", false, false, true),
              store("e1-own", true, false, false),
              store("e2-own-delayed", true, true, false));
      ReadFirstRounds.primeTaken(store("eblocker", false, false, false), stores, keys);
      AtomicBoolean stop = new AtomicBoolean();
      Thread editor = editor(keys, stop, edits, problems);
      ReadFirstRounds.race(stores, keys, 6, 60, grants, refusals, problems, true);
      stop.set(true);
      editor.join();
      for (LeaseStore s : stores) {
        s.close();
      }
    }
    Map<String, Integer> states = new HashMap<>();
    refusals.forEach(r -> states.merge(r.status().state().name(), 1, Integer::sum));
    System.out.printf(
        "read first: edited race: grants=%d refusals=%d %s edits=%d problems=%d%n",
        grants.size(), refusals.size(), states, edits.get(), problems.size());
    problems.stream().limit(20).forEach(p -> System.out.println("read first: problem: " + p));
    assertThat(problems).isEmpty();
    checkHistory(grants, refusals, Set.of("e2-own-delayed"), Set.of());
  }

  /**
   * Edits rows behind the stores' backs: ends a live lease early (expiry moved), marks it released,
   * holds it, deletes the row, live or not (more than a sweep ever does), raises its fence together
   * with the sequence.
   */
  private static Thread editor(
      List<LeaseKey> keys, AtomicBoolean stop, AtomicInteger edits, List<String> problems) {
    String[] sqls = {
      "UPDATE leasehold_lease SET expires_at = statement_timestamp() - interval '1 millisecond'"
          + " WHERE account_id = ? AND session_id = ? AND released_at IS NULL",
      "UPDATE leasehold_lease SET released_at = statement_timestamp(), expires_at ="
          + " statement_timestamp() WHERE account_id = ? AND session_id = ? AND released_at IS"
          + " NULL AND expires_at > statement_timestamp()",
      "UPDATE leasehold_lease SET released_at = statement_timestamp(), expires_at ="
          + " statement_timestamp() + interval '20 milliseconds' WHERE account_id = ? AND"
          + " session_id = ? AND released_at IS NULL AND expires_at > statement_timestamp()",
      "DELETE FROM leasehold_lease WHERE account_id = ? AND session_id = ?",
      // raised with the sequence (a fence above the sequence plus a delete outside the sweep
      // would give the next insert a lower fence: outside what the docs promise)
      "UPDATE leasehold_lease SET fence = setval('leasehold_fence_seq',"
          + " nextval('leasehold_fence_seq') + 1000) WHERE account_id = ? AND session_id = ?",
    };
    Thread t =
        new Thread(
            () -> {
              ThreadLocalRandom rnd = ThreadLocalRandom.current();
              try {
                while (!stop.get()) {
                  LeaseKey k = keys.get(rnd.nextInt(keys.size()));
                  Sql.update(
                      db.dataSource(),
                      sqls[rnd.nextInt(sqls.length)],
                      k.accountId(),
                      k.sessionId());
                  edits.incrementAndGet();
                  Thread.sleep(rnd.nextInt(20)); // the edits' pace, not a hope
                }
              } catch (Throwable e) {
                problems.add("editor: " + e);
              }
            });
    t.start();
    return t;
  }

  /** Locks a random key's row for up to 40 ms at a time from a connection of its own. */
  private static Thread meddler(
      List<LeaseKey> keys, AtomicBoolean stop, AtomicInteger locks, List<String> problems) {
    Thread t =
        new Thread(
            () -> {
              ThreadLocalRandom rnd = ThreadLocalRandom.current();
              try {
                while (!stop.get()) {
                  LeaseKey k = keys.get(rnd.nextInt(keys.size()));
                  try (Connection c = LockWaits.lockRow(db, k)) {
                    locks.incrementAndGet();
                    Thread.sleep(rnd.nextInt(40)); // the lock's length, not a hope
                    c.rollback();
                  }
                  Thread.sleep(rnd.nextInt(40));
                }
              } catch (Throwable e) {
                problems.add("meddler: " + e);
              }
            });
    t.start();
    return t;
  }

  @Test
  void twoProcessesWhoseStoresFoundEveryKeyTakenKeepOneOwnerAndRisingFences() throws Exception {
    List<LeaseKey> keys = RaceParts.keys("xacct", "rf-xproc", 2);
    List<LeaseStore> stores =
        List.of(
            store("parent-shared", false, false, false), store("parent-own", true, false, false));
    ReadFirstRounds.primeTaken(store("parent-blocker", false, false, false), stores, keys);
    try (ChildJvm child =
        LeaseDatabase.child(
            db, ReadFirstRaceMain.class, LeaseKey.of("xacct", "rf-xproc"), "2", "80")) {
      child.awaitLine("READY", 60);
      child.send("GO");
      List<ReadFirstRounds.Grant> grants = new CopyOnWriteArrayList<>();
      List<ReadFirstRounds.Refusal> refusals = new CopyOnWriteArrayList<>();
      List<String> problems = new CopyOnWriteArrayList<>();
      ReadFirstRounds.race(stores, keys, 4, 80, grants, refusals, problems);
      String childGrants = child.awaitLine("GRANTS ", 120);
      String childRefusals = child.awaitLine("REFUSALS ", 60);
      String result = child.awaitLine("RESULT ", 60);
      System.out.println(
          "read first: two processes: parent grants "
              + grants.size()
              + ", refusals "
              + refusals.size()
              + ", problems "
              + problems
              + "; child "
              + result);
      for (String g : childGrants.substring("GRANTS ".length()).split(",")) {
        if (!g.isEmpty()) {
          String[] p = g.split(":");
          grants.add(
              new ReadFirstRounds.Grant(null, UUID.fromString(p[0]), Long.parseLong(p[1]), "c"));
        }
      }
      Set<String> childOwners = new HashSet<>();
      for (String g : childRefusals.substring("REFUSALS ".length()).split(",")) {
        if (!g.isEmpty()) {
          childOwners.add(g);
        }
      }
      assertThat(problems).isEmpty();
      assertThat(result.split(" ", 4)[2]).as("child problems: %s", result).isEqualTo("0");
      checkHistory(grants, refusals, Set.of(), childOwners);
    }
  }

  /**
   * C1 and C3 on every grant the database recorded; every client grant is one of them; every Busy
   * names a run the database granted, with its fence.
   */
  private static void checkHistory(
      List<ReadFirstRounds.Grant> clientGrants,
      List<ReadFirstRounds.Refusal> refusals,
      Set<String> delayedHolders,
      Set<String> moreOwners)
      throws Exception {
    List<List<Object>> rows =
        Sql.query(
            db.dataSource(),
            "SELECT id, op, account_id, session_id, old_run, old_fence, old_expires, old_released,"
                + " new_run, new_fence, new_holder, new_acquired"
                + " FROM rf_history WHERE op = 'I' OR old_run <> new_run ORDER BY id");
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
        Instant acquirable;
        if (oldReleased != null && !oldExpires.isAfter(oldReleased.toInstant())) {
          acquirable = oldReleased.toInstant(); // a plain release
        } else if (oldReleased != null) {
          acquirable = oldExpires; // a hold
        } else {
          acquirable =
              delayedHolders.contains((String) r.get(10)) ? oldExpires.plus(DELAY) : oldExpires;
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
                  + " (id "
                  + r.get(0)
                  + ")");
        }
      }
    }
    for (ReadFirstRounds.Grant g : clientGrants) {
      Long f = dbGrants.get(g.run());
      if (f == null || f != g.fence()) {
        violations.add("client grant not in the table: " + g + " db fence " + f);
      }
    }
    // Every (run, fence) a row ever showed, fences edited behind the stores' backs included.
    Set<String> rowsShown = new HashSet<>();
    for (List<Object> r : Sql.query(db.dataSource(), "SELECT new_run, new_fence FROM rf_history")) {
      rowsShown.add(r.get(0) + ":" + r.get(1));
    }
    for (ReadFirstRounds.Refusal r : refusals) {
      LeaseStatus st = r.status();
      if (st.owner().isEmpty()) {
        continue; // reported by the round already
      }
      if (!rowsShown.contains(st.owner().get().runId() + ":" + st.owner().get().fence())) {
        violations.add("Busy names a run and fence no row ever showed: " + st);
      }
    }
    for (String o : moreOwners) {
      String[] p = o.split(":");
      if (!rowsShown.contains(o)) {
        violations.add("child's Busy names a run the table never granted: " + o);
      }
    }
    System.out.printf(
        "read first: history: db grants=%d client grants=%d refusals=%d violations=%d%n",
        rows.size(), clientGrants.size(), refusals.size(), violations.size());
    violations.stream().limit(20).forEach(v -> System.out.println("read first: violation: " + v));
    assertThat(violations).isEmpty();
  }
}
