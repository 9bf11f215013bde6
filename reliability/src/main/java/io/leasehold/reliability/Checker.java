package io.leasehold.reliability;

import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * Reads a history and the resources' own logs and reports every violation of the contract it can
 * decide, each with the operations around it. Unknown outcomes (errors) are treated so that they
 * can never cause a false report: an unconfirmed renewal may have extended a lease, so a lease's
 * end is only ever taken from confirmed answers, as a lower bound.
 */
final class Checker {
  private Checker() {}

  /**
   * A broken guarantee.
   *
   * @param rule the contract item, e.g. {@code C1}
   * @param message what happened
   * @param context the operations involved
   */
  record Violation(String rule, String message, List<Op> context) {
    @Override
    public String toString() {
      StringBuilder b = new StringBuilder(rule).append(": ").append(message);
      for (Op op : context) {
        b.append("\n      ").append(op);
      }
      return b.toString();
    }
  }

  /** What the database confirmed about one run. */
  private static final class Run {
    final FencingToken token;
    final Op acquire;
    final List<Op> ops = new ArrayList<>();
    Instant knownEnd;
    Instant lastKnownDbTime;
    Instant releasedAt;
    boolean releaseUnknown;

    Run(Op acquire) {
      this.token = acquire.token();
      this.acquire = acquire;
      this.knownEnd = acquire.dbExpires();
      this.lastKnownDbTime = acquire.dbStart();
      ops.add(acquire);
    }

    Instant start() {
      return acquire.dbStart();
    }

    /** How a violation names the run: {@code run <id> (fence <n>)}. */
    @Override
    public String toString() {
      return "run " + token.runId() + " (fence " + token.fence() + ")";
    }

    /** A lower bound of when the run's lease ended in the database. */
    Instant endLowerBound() {
      Instant end = knownEnd;
      if (releasedAt != null && releasedAt.isBefore(end)) {
        end = releasedAt;
      }
      if (releaseUnknown && lastKnownDbTime.isBefore(end)) {
        end = lastKnownDbTime;
      }
      return end;
    }
  }

  static List<Violation> check(List<Op> history, TortureResources.Logs logs) {
    List<Violation> out = new ArrayList<>();
    Map<UUID, Run> runs = runs(history, out);
    checkLeases(runs, out);
    checkLocalStop(history, out);
    checkResources(history, logs, out);
    checkLiveness(history, out);
    return out;
  }

  /** Rebuilds each run from its operations, checking C4 on the way. */
  private static Map<UUID, Run> runs(List<Op> history, List<Violation> out) {
    Map<UUID, Run> runs = new LinkedHashMap<>();
    for (Op op : history) {
      if (op.type() == Op.Type.ACQUIRE && op.outcome() == Op.Outcome.OK) {
        runs.put(op.token().runId(), new Run(op));
      }
    }
    // A run's renewals and release come from one worker, one after another: local order is theirs.
    List<Op> lifecycle = new ArrayList<>();
    for (Op op : history) {
      if ((op.type() == Op.Type.RENEW || op.type() == Op.Type.RELEASE) && op.token() != null) {
        lifecycle.add(op);
      }
    }
    lifecycle.sort(Comparator.comparing(Op::process).thenComparingLong(Op::invokeNanos));
    Map<UUID, Boolean> uncertain = new HashMap<>();
    for (Op op : lifecycle) {
      Run run = runs.get(op.token().runId());
      if (run == null) {
        continue;
      }
      run.ops.add(op);
      boolean unsure = uncertain.getOrDefault(run.token.runId(), false);
      if (op.outcome() == Op.Outcome.ERROR) {
        if (op.type() == Op.Type.RENEW) {
          uncertain.put(run.token.runId(), true);
        } else {
          run.releaseUnknown = true;
        }
        continue;
      }
      if (op.dbNow() != null && op.dbNow().isAfter(run.lastKnownDbTime)) {
        run.lastKnownDbTime = op.dbNow();
      }
      if (op.outcome() != Op.Outcome.OK) {
        continue;
      }
      boolean expired = op.dbNow() != null && !op.dbNow().isBefore(run.knownEnd) && !unsure;
      if (run.releasedAt != null || expired) {
        out.add(
            new Violation(
                "C4",
                op.type()
                    + " by run "
                    + run.token.runId()
                    + " changed its lease although it "
                    + (run.releasedAt != null
                        ? "had released it"
                        : "had expired at " + run.knownEnd),
                List.copyOf(run.ops)));
      }
      if (op.type() == Op.Type.RENEW
          && op.dbExpires() != null
          && op.dbExpires().isAfter(run.knownEnd)) {
        run.knownEnd = op.dbExpires();
      } else if (op.type() == Op.Type.RELEASE) {
        run.releasedAt = op.dbNow();
      }
    }
    // A release that was sent but whose outcome was never recorded (the process was killed in
    // between) may have ended the lease at any point after the run's last confirmed answer.
    Map<UUID, Boolean> completed = new HashMap<>();
    for (Op op : lifecycle) {
      if (op.type() == Op.Type.RELEASE) {
        boolean done = op.outcome() != Op.Outcome.PENDING;
        completed.merge(op.token().runId(), done, Boolean::logicalOr);
      }
    }
    completed.forEach(
        (run, done) -> {
          if (!done && runs.containsKey(run)) {
            runs.get(run).releaseUnknown = true;
          }
        });
    return runs;
  }

  /** C1 (no overlapping leases) and C3 (strictly increasing fences) per key. */
  private static void checkLeases(Map<UUID, Run> runs, List<Violation> out) {
    Map<LeaseKey, List<Run>> byKey = new HashMap<>();
    for (Run r : runs.values()) {
      byKey.computeIfAbsent(r.token.key(), k -> new ArrayList<>()).add(r);
    }
    for (List<Run> list : byKey.values()) {
      list.sort(Comparator.comparing(Run::start).thenComparingLong(r -> r.token.fence()));
      Run previous = null; // the latest start so far
      Run reachesFurthest = null; // the run whose lease ends latest so far
      for (Run r : list) {
        if (reachesFurthest != null && r.start().isBefore(reachesFurthest.endLowerBound())) {
          out.add(
              new Violation(
                  "C1",
                  r
                      + " acquired "
                      + r.token.key()
                      + " at "
                      + r.start()
                      + " while "
                      + reachesFurthest
                      + " held it until at least "
                      + reachesFurthest.endLowerBound(),
                  concat(reachesFurthest.ops, r.ops)));
        }
        if (previous != null && r.token.fence() <= previous.token.fence()) {
          out.add(
              new Violation(
                  "C3",
                  "fence "
                      + r.token.fence()
                      + " acquired after fence "
                      + previous.token.fence()
                      + " on "
                      + r.token.key(),
                  concat(previous.ops, r.ops)));
        }
        previous = r;
        if (reachesFurthest == null || r.endLowerBound().isAfter(reachesFurthest.endLowerBound())) {
          reachesFurthest = r;
        }
      }
    }
  }

  /** C6: once a worker knows its lease is lost, its own fenced writes are refused locally. */
  private static void checkLocalStop(List<Op> history, List<Violation> out) {
    Map<String, List<Op>> byWorker = new HashMap<>();
    for (Op op : history) {
      byWorker.computeIfAbsent(op.process() + "/" + op.worker(), k -> new ArrayList<>()).add(op);
    }
    for (List<Op> ops : byWorker.values()) {
      ops.sort(Comparator.comparingLong(Op::invokeNanos));
      Map<UUID, Op> lossKnown = new HashMap<>();
      for (Op op : ops) {
        if (op.token() == null) {
          continue;
        }
        if (op.type() == Op.Type.LOSS_KNOWN) {
          lossKnown.putIfAbsent(op.token().runId(), op);
        } else if (op.type() == Op.Type.WRITE && !op.inFlight()) {
          Op loss = lossKnown.get(op.token().runId());
          if (loss != null
              && op.invokeNanos() > loss.completeNanos()
              && op.outcome() != Op.Outcome.LOCAL_REFUSED) {
            out.add(
                new Violation(
                    "C6",
                    "a write of run "
                        + op.token().runId()
                        + " reached the "
                        + op.adapter()
                        + " after the worker knew its lease was lost",
                    List.of(loss, op)));
          }
        }
      }
    }
  }

  /**
   * C9/C10: each resource's own log of admissions never goes back, and matches what workers saw.
   */
  private static void checkResources(
      List<Op> history, TortureResources.Logs logs, List<Violation> out) {
    for (Map.Entry<String, Map<LeaseKey, List<TortureResources.Admitted>>> adapter :
        logs.admitted().entrySet()) {
      for (Map.Entry<LeaseKey, List<TortureResources.Admitted>> e : adapter.getValue().entrySet()) {
        List<TortureResources.Admitted> log = e.getValue();
        for (int i = 1; i < log.size(); i++) {
          long before = log.get(i - 1).token().fence();
          long now = log.get(i).token().fence();
          if (now < before) {
            out.add(
                new Violation(
                    "C9",
                    "the "
                        + adapter.getKey()
                        + " admitted fence "
                        + now
                        + " after fence "
                        + before
                        + " on "
                        + e.getKey(),
                    writesOf(history, log.get(i).token(), log.get(i - 1).token())));
            break;
          }
        }
      }
    }
    // What each resource holds at the end is the last admitted write's (C10).
    checkFinalState(
        out,
        logs,
        logs.finalFileWriter(),
        "file",
        TortureResources.Admitted::token,
        "the file of %s was written by %s, but the last admitted file write was %s");
    checkFinalState(
        out,
        logs,
        logs.finalJdbcValue(),
        "jdbc",
        TortureResources.Admitted::id,
        "the register of %s holds %s, but the last admitted database write was %s");
    Map<FencingToken, Integer> okFileWrites = new HashMap<>();
    for (Op op : history) {
      if (op.type() != Op.Type.WRITE || op.outcome() != Op.Outcome.OK) {
        continue;
      }
      if (op.adapter().equals("file")) {
        okFileWrites.merge(op.token(), 1, Integer::sum);
      } else {
        Set<String> acked = logs.acknowledgedIds().get(op.adapter());
        if (!acked.contains(op.writeId())) {
          out.add(
              new Violation(
                  "C10",
                  "an acknowledged " + op.adapter() + " write is missing from its log",
                  List.of(op)));
        }
      }
    }
    Map<FencingToken, Integer> logged = new HashMap<>();
    logs.admitted()
        .get("file")
        .values()
        .forEach(l -> l.forEach(a -> logged.merge(a.token(), 1, Integer::sum)));
    for (Map.Entry<FencingToken, Integer> e : okFileWrites.entrySet()) {
      if (logged.getOrDefault(e.getKey(), 0) < e.getValue()) {
        out.add(
            new Violation(
                "C10",
                e.getValue()
                    + " acknowledged file writes of "
                    + e.getKey()
                    + " but only "
                    + logged.getOrDefault(e.getKey(), 0)
                    + " in the audit log",
                writesOf(history, e.getKey())));
      }
    }
  }

  /** After the faults stopped, every key could be acquired within the bound. */
  private static void checkLiveness(List<Op> history, List<Violation> out) {
    for (Op op : history) {
      if (op.type() == Op.Type.LIVENESS && op.outcome() != Op.Outcome.OK) {
        out.add(
            new Violation(
                "liveness",
                op.key() + " could not be acquired after the faults stopped",
                List.of(op)));
      }
    }
  }

  /** What the last admitted write of {@code adapter} for the key says, or null if none was. */
  /**
   * C10 for one resource: what it holds at the end, per key ({@code finalState}), is {@code what}
   * of the last write its log admitted; otherwise a violation {@code format} describes (key, what
   * it holds, the last admitted).
   */
  private static void checkFinalState(
      List<Violation> out,
      TortureResources.Logs logs,
      Map<LeaseKey, ?> finalState,
      String adapter,
      java.util.function.Function<TortureResources.Admitted, ?> what,
      String format) {
    finalState.forEach(
        (key, held) -> {
          Object last = lastAdmitted(logs, adapter, key, what);
          if (!held.equals(last)) {
            out.add(new Violation("C10", String.format(format, key, held, last), List.of()));
          }
        });
  }

  private static Object lastAdmitted(
      TortureResources.Logs logs,
      String adapter,
      LeaseKey key,
      java.util.function.Function<TortureResources.Admitted, ?> what) {
    List<TortureResources.Admitted> log = logs.admitted().get(adapter).get(key);
    return log == null || log.isEmpty() ? null : what.apply(log.get(log.size() - 1));
  }

  private static List<Op> writesOf(List<Op> history, FencingToken... tokens) {
    List<Op> ops = new ArrayList<>();
    for (Op op : history) {
      for (FencingToken t : tokens) {
        if (t.equals(op.token()) && ops.size() < 12) {
          ops.add(op);
        }
      }
    }
    return ops;
  }

  private static List<Op> concat(List<Op> a, List<Op> b) {
    List<Op> all = new ArrayList<>(a);
    all.addAll(b);
    return all.size() > 16 ? all.subList(all.size() - 16, all.size()) : all;
  }
}
