package io.leasehold.lease.readfirst;

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
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Threads racing stores that found every key taken (so they answer with the read first) on keys
 * whose short one-shot leases are released, released with a hold, or left to expire; each answer is
 * recorded and checked against what the client saw before it.
 */
final class ReadFirstRounds {
  private ReadFirstRounds() {}

  /** A grant as the client saw it. */
  record Grant(LeaseKey key, UUID run, long fence, String holder) {}

  /** A refusal as the client saw it. */
  record Refusal(LeaseKey key, LeaseStatus status) {}

  /** Makes every store find every key taken: a blocker holds each key while each store asks. */
  static void primeTaken(LeaseStore blocker, List<LeaseStore> stores, List<LeaseKey> keys)
      throws InterruptedException {
    for (LeaseKey k : keys) {
      Lease held =
          blocker
              .acquire(AcquireRequest.of(k, k.accountId()), Duration.ofSeconds(10))
              .acquiredLease()
              .orElseThrow();
      for (LeaseStore s : stores) {
        if (!(s.tryAcquire(AcquireRequest.of(k, k.accountId())) instanceof AcquireResult.Busy)) {
          throw new AssertionError("priming: " + k + " not busy");
        }
      }
      held.release();
    }
  }

  static void race(
      List<LeaseStore> stores,
      List<LeaseKey> keys,
      int threads,
      int rounds,
      List<Grant> grants,
      List<Refusal> refusals,
      List<String> problems) {
    race(stores, keys, threads, rounds, grants, refusals, problems, false);
  }

  /**
   * @param rowsDeletedByHand true when another thread deletes rows, live ones too, behind the
   *     stores' backs (only the sweep deletes rows, and only long-ended ones): a refusal that lost
   *     the key to an insert can then find no row at all when it reads who won, and answers Busy
   *     with a free key and no owner; with nothing else deleting rows, Busy always names one
   */
  static void race(
      List<LeaseStore> stores,
      List<LeaseKey> keys,
      int threads,
      int rounds,
      List<Grant> grants,
      List<Refusal> refusals,
      List<String> problems,
      boolean rowsDeletedByHand) {
    Map<LeaseKey, AtomicLong> floor = new ConcurrentHashMap<>();
    keys.forEach(k -> floor.put(k, new AtomicLong()));
    AtomicInteger waits = new AtomicInteger();
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
                    long seen = floor.get(k).get();
                    AcquireRequest req =
                        AcquireRequest.of(k, k.accountId())
                            .oneShot(Duration.ofMillis(1 + rnd.nextInt(40)));
                    AcquireResult r;
                    if (rnd.nextInt(10) == 0 && waits.incrementAndGet() < rounds) {
                      r = s.acquire(req, Duration.ofMillis(rnd.nextInt(60)));
                    } else {
                      r = s.tryAcquire(req);
                    }
                    if (r instanceof AcquireResult.Acquired a) {
                      Lease l = a.lease();
                      grants.add(new Grant(k, l.runId(), l.fence(), l.holder()));
                      floor.get(k).accumulateAndGet(l.fence(), Math::max);
                      if (l.fence() <= seen) {
                        problems.add(k + ": grant fence " + l.fence() + " <= earlier " + seen);
                      }
                      int action = rnd.nextInt(4);
                      if (action == 0) {
                        l.release();
                      } else if (action == 1) {
                        Instant until = l.acquiredAt().plusMillis(rnd.nextInt(30));
                        l.releaseHolding(until.isAfter(l.expiresAt()) ? l.expiresAt() : until);
                      } else if (action == 2) {
                        Thread.onSpinWait(); // left to expire
                      } else {
                        // a second ask of a key this store holds: Busy with its own run
                        AcquireResult again = s.tryAcquire(AcquireRequest.of(k, k.accountId()));
                        if (again instanceof AcquireResult.Busy b) {
                          refusals.add(new Refusal(k, b.status()));
                        } else if (again instanceof AcquireResult.Acquired a2) {
                          grants.add(
                              new Grant(
                                  k, a2.lease().runId(), a2.lease().fence(), a2.lease().holder()));
                          floor.get(k).accumulateAndGet(a2.lease().fence(), Math::max);
                          a2.lease().release();
                        }
                        l.release();
                      }
                    } else if (r instanceof AcquireResult.Busy b) {
                      LeaseStatus st = b.status();
                      refusals.add(new Refusal(k, st));
                      LeaseOwner o = st.owner().orElse(null);
                      if (o == null) {
                        if (!rowsDeletedByHand || st.state() != LeaseStatus.State.FREE) {
                          problems.add("Busy without an owner: " + st);
                        }
                      } else if (o.fence() < seen) {
                        problems.add("Busy names a stale owner: " + o.fence() + " < " + seen);
                      }
                      if (st.state() == LeaseStatus.State.HELD
                          && (o == null
                              || o.releasedAt() != null
                              || !o.expiresAt().isAfter(st.databaseNow()))) {
                        problems.add("Busy HELD on a row that is not held: " + st);
                      }
                      if (st.state() == LeaseStatus.State.DRAINING
                          && !st.acquirableAt().isAfter(st.databaseNow())) {
                        problems.add("Busy DRAINING but acquirable already: " + st);
                      }
                    } else {
                      // TooLate is possible with 1 ms one-shot leases? No: one-shot is never
                      // TooLate (docs); record anything else.
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
      try {
        w.join();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        problems.add("interrupted");
      }
    }
  }
}
