package io.leasehold.lease.updatealone;

import io.leasehold.fencing.LeaseKey;
import io.leasehold.lease.AcquireRequest;
import io.leasehold.lease.AcquireResult;
import io.leasehold.lease.Lease;
import io.leasehold.lease.LeaseOwner;
import io.leasehold.lease.LeaseStatus;
import io.leasehold.lease.LeaseStore;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Threads racing stores on keys with one-shot leases that are released, released with a hold, or
 * left to expire; every answer is recorded and checked against the grants seen before it.
 */
final class RaceRounds {
  private RaceRounds() {}

  /** Which acquire a prepared statement is: "insert", "full", "update alone", or "other". */
  static String form(String sql) {
    if (sql.contains("INSERT INTO")) {
      return "insert";
    }
    if (!sql.contains("SET run_id")) {
      return "other";
    }
    return sql.contains("UNION ALL") ? "full" : "update alone";
  }

  /** A grant as the client saw it. */
  record Grant(LeaseKey key, UUID run, long fence, String holder) {}

  static void race(
      List<LeaseStore> stores,
      List<LeaseKey> keys,
      Map<LeaseKey, AtomicLong> grantedFloor,
      List<Grant> grants,
      List<String> problems,
      AtomicInteger busy,
      Map<String, AtomicInteger> busyStates)
      throws InterruptedException {
    int threads = 8;
    int rounds = 60;
    CountDownLatch start = new CountDownLatch(1);
    List<Thread> workers = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      Thread w =
          new Thread(
              () -> {
                ThreadLocalRandom rnd = ThreadLocalRandom.current();
                try {
                  start.await();
                  for (int i = 0; i < rounds; i++) {
                    LeaseStore s = stores.get(rnd.nextInt(stores.size()));
                    LeaseKey k = keys.get(rnd.nextInt(keys.size()));
                    long floor = grantedFloor.get(k).get();
                    AcquireRequest req =
                        AcquireRequest.of(k, k.accountId())
                            .oneShot(Duration.ofMillis(1 + rnd.nextInt(40)));
                    AcquireResult r = s.tryAcquire(req);
                    if (r instanceof AcquireResult.Acquired a) {
                      Lease l = a.lease();
                      grants.add(new Grant(k, l.runId(), l.fence(), l.holder()));
                      grantedFloor.get(k).accumulateAndGet(l.fence(), Math::max);
                      if (l.fence() <= floor) {
                        problems.add("grant fence " + l.fence() + " <= earlier grant " + floor);
                      }
                      int action = rnd.nextInt(3);
                      if (action == 0) {
                        l.release();
                      } else if (action == 1) {
                        Instant until = l.acquiredAt().plusMillis(rnd.nextInt(30));
                        l.releaseHolding(until.isAfter(l.expiresAt()) ? l.expiresAt() : until);
                      } // else: left to expire
                    } else if (r instanceof AcquireResult.Busy b) {
                      busy.incrementAndGet();
                      LeaseStatus st = b.status();
                      busyStates
                          .computeIfAbsent(st.state().name(), x -> new AtomicInteger())
                          .incrementAndGet();
                      LeaseOwner o = st.owner().orElse(null);
                      if (o == null) {
                        problems.add("Busy without an owner: " + st);
                      } else if (o.fence() < floor) {
                        problems.add(
                            "Busy names a stale owner: fence " + o.fence() + " < granted " + floor);
                      }
                    } else {
                      problems.add("unexpected answer " + r);
                    }
                  }
                } catch (Throwable e) {
                  problems.add("exception: " + e);
                }
              });
      workers.add(w);
      w.start();
    }
    start.countDown();
    for (Thread w : workers) {
      w.join();
    }
  }
}
