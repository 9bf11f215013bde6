package io.leasehold.reliability;

import io.leasehold.fencing.Fenced;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.LeaseLostException;
import io.leasehold.fencing.StaleFenceException;
import java.time.Duration;
import java.util.List;
import java.util.Random;

/**
 * One worker: acquires a random key, writes through the three adapters with its lease, renews, and
 * then releases or just stops; sometimes it freezes past its TTL (a scheduled pause) and then
 * delivers a write it had built before the freeze. Every operation goes into the history.
 */
final class Worker implements Runnable {
  private static final String[] ADAPTERS = {"file", "tool", "jdbc"};

  /**
   * What every worker of one process shares: the process's name, its lease client, the resources,
   * the history, the TTL, when to stop and the pause schedule.
   */
  record Shift(
      String process,
      LeaseClient client,
      TortureResources resources,
      History history,
      Duration ttl,
      long stopAtNanos,
      PauseSchedule pauses) {}

  private final Shift shift;
  private final String name;
  private final List<LeaseKey> keys;
  private final Random random;

  /** Leases this worker's runs left without releasing: the store releases them when it closes. */
  private final java.util.Map<FencingToken, LeaseKey> unreleased = new java.util.LinkedHashMap<>();

  private int writes;

  Worker(Shift shift, String name, List<LeaseKey> keys, long seed) {
    this.shift = shift;
    this.name = name;
    this.keys = keys;
    this.random = new Random(seed);
  }

  @Override
  public void run() {
    while (System.nanoTime() - shift.stopAtNanos() < 0) {
      LeaseKey key = keys.get(random.nextInt(keys.size()));
      long t0 = System.nanoTime();
      LeaseClient.Held held;
      try {
        held = shift.client().acquire(key);
      } catch (RuntimeException e) {
        record(Op.Type.ACQUIRE, key, null, Op.Outcome.ERROR, null, null, false, t0, e.toString());
        sleep(Duration.ofMillis(20));
        continue;
      }
      if (held == null) {
        record(Op.Type.ACQUIRE, key, null, Op.Outcome.BUSY, null, null, false, t0, null);
        sleep(Duration.ofMillis(5 + random.nextInt(25)));
        continue;
      }
      LeaseClient.Grant grant = held.grant();
      FencingToken token = grant.identity();
      shift.history().record(Op.acquired(shift.process(), name, key, grant, t0));
      work(key, held, token);
    }
  }

  private void work(LeaseKey key, LeaseClient.Held held, FencingToken token) {
    boolean lost = false;
    int steps = 1 + random.nextInt(6);
    for (int step = 0; step < steps && !lost; step++) {
      if (shift.pauses().due(name)) {
        long t = System.nanoTime();
        Duration pause = shift.ttl().multipliedBy(16).dividedBy(10);
        sleep(pause);
        record(
            Op.Type.FAULT,
            key,
            token,
            Op.Outcome.OK,
            null,
            null,
            false,
            t,
            "pause " + pause.toMillis() + " ms");
        // A request the run had built before it froze arrives now, carrying the bare token.
        write(key, token, token, true);
      }
      Op.Outcome w = write(key, held, token, false);
      if (w == Op.Outcome.LOCAL_REFUSED || held.isLost()) {
        lossKnown(key, token, "lease handle reports loss");
        // One more attempt through the handle: it must be refused locally (CONTRACT C6).
        write(key, held, token, false);
        lost = true;
        break;
      }
      if (random.nextBoolean()) {
        long t = System.nanoTime();
        try {
          LeaseClient.Answer a = held.renew();
          shift
              .history()
              .record(Op.answered(shift.process(), name, Op.Type.RENEW, key, token, a, t));
          if (!a.ok()) {
            lossKnown(key, token, "renewal refused");
            lost = true;
          }
        } catch (RuntimeException e) {
          record(Op.Type.RENEW, key, token, Op.Outcome.ERROR, null, null, false, t, e.toString());
          lossKnown(key, token, "renewal failed");
          lost = true;
        }
      }
    }
    // Release when done; a run that lost its lease sometimes releases late too (a stale clean-up).
    boolean releases = lost ? random.nextBoolean() : random.nextInt(10) < 7;
    if (!releases && !lost) {
      unreleased.put(token, key);
    }
    if (releases) {
      long t = System.nanoTime();
      record(Op.Type.RELEASE, key, token, Op.Outcome.PENDING, null, null, false, t, null);
      try {
        LeaseClient.Answer a = held.release();
        shift
            .history()
            .record(Op.answered(shift.process(), name, Op.Type.RELEASE, key, token, a, t));
      } catch (RuntimeException e) {
        record(Op.Type.RELEASE, key, token, Op.Outcome.ERROR, null, null, false, t, e.toString());
      }
    }
  }

  private Op.Outcome write(LeaseKey key, Fenced fenced, FencingToken token, boolean inFlight) {
    String adapter = ADAPTERS[random.nextInt(ADAPTERS.length)];
    String writeId = shift.process() + "-" + name + "-" + (++writes);
    long t = System.nanoTime();
    Op.Outcome outcome;
    String id = writeId;
    String detail = null;
    try {
      id = shift.resources().write(adapter, fenced, key, writeId);
      outcome = Op.Outcome.OK;
    } catch (StaleFenceException e) {
      outcome = Op.Outcome.STALE;
      detail = "highest " + e.highestFence();
    } catch (LeaseLostException e) {
      outcome = Op.Outcome.LOCAL_REFUSED;
    } catch (RuntimeException e) {
      outcome = Op.Outcome.ERROR;
      detail = e.toString();
    }
    record(Op.Type.WRITE, key, token, outcome, adapter, id, inFlight, t, detail);
    return outcome;
  }

  private void lossKnown(LeaseKey key, FencingToken token, String why) {
    record(
        Op.Type.LOSS_KNOWN, key, token, Op.Outcome.OK, null, null, false, System.nanoTime(), why);
  }

  /**
   * Records, before the process closes its store, a pending release of every lease its runs left
   * held: closing the store releases them (CONTRACT C6, and issue 13's "release on close").
   */
  void recordReleaseOnClose() {
    for (java.util.Map.Entry<FencingToken, LeaseKey> e : unreleased.entrySet()) {
      record(
          Op.Type.RELEASE,
          e.getValue(),
          e.getKey(),
          Op.Outcome.PENDING,
          null,
          null,
          false,
          System.nanoTime(),
          "the store's close() releases it");
    }
    unreleased.clear();
  }

  private void record(
      Op.Type type,
      LeaseKey key,
      FencingToken token,
      Op.Outcome outcome,
      String adapter,
      String writeId,
      boolean inFlight,
      long invokeNanos,
      String detail) {
    shift
        .history()
        .record(
            new Op(
                shift.process(),
                name,
                type,
                key,
                token,
                outcome,
                adapter,
                writeId,
                inFlight,
                null,
                null,
                null,
                invokeNanos,
                System.nanoTime(),
                detail));
  }

  private static void sleep(Duration d) {
    try {
      Thread.sleep(d.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
