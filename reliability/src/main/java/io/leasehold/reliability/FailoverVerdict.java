package io.leasehold.reliability;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The failover run's one verdict (issue 33): a run fails when an acknowledged write is lost, the
 * checker finds a violation, the fence sequence goes back, or a failover does not complete within
 * its bound. The asynchronous negative control is run expecting loss, and passes only if a loss was
 * detected: a control that cannot fail shows nothing.
 *
 * @param violations the checker's violations
 * @param acknowledgedWrites probe writes acknowledged
 * @param lostWrites acknowledged probe writes the final primary lacks
 * @param sequenceJumps per fault, how far the fence sequence moved (negative: it went back)
 * @param unavailableMillis per fault, from the fault to the first acknowledged write
 * @param bound the longest a failover may take
 * @param expectLoss whether this is the negative control, which must detect a loss
 */
record FailoverVerdict(
    int violations,
    int acknowledgedWrites,
    int lostWrites,
    List<Long> sequenceJumps,
    List<Long> unavailableMillis,
    Duration bound,
    boolean expectLoss) {

  static FailoverVerdict of(FailoverRun.Report r, Duration bound, boolean expectLoss) {
    return new FailoverVerdict(
        r.torture().violations().size(),
        r.acknowledgedWrites(),
        r.lostWrites(),
        r.sequenceJumps(),
        r.unavailableMillis(),
        bound,
        expectLoss);
  }

  long backwards() {
    return sequenceJumps.stream().filter(j -> j < 0).count();
  }

  long slow() {
    return unavailableMillis.stream().filter(ms -> ms > bound.toMillis()).count();
  }

  /** Why the run fails, in one line; empty when it passes. */
  List<String> failures() {
    List<String> why = new ArrayList<>();
    if (expectLoss) {
      if (lostWrites == 0) {
        why.add(
            "the negative control detected no loss ("
                + acknowledgedWrites
                + " acknowledged writes, none"
                + " lost): it shows nothing; run longer or with more failovers");
      }
      return why;
    }
    if (lostWrites > 0) {
      why.add(lostWrites + " acknowledged write(s) lost");
    }
    if (violations > 0) {
      why.add(violations + " checker violation(s)");
    }
    if (backwards() > 0) {
      why.add("the fence sequence went back at " + backwards() + " fault(s)");
    }
    if (slow() > 0) {
      why.add(slow() + " failover(s) took longer than " + bound.toSeconds() + " s");
    }
    return why;
  }

  boolean passed() {
    return failures().isEmpty();
  }

  /** The summary line: each count, and the verdict with its reason. */
  String summary() {
    return "VERDICT: "
        + (passed() ? "PASS" : "FAIL (" + String.join("; ", failures()) + ")")
        + (expectLoss ? " [negative control: loss expected]" : "")
        + " | lost "
        + lostWrites
        + " of "
        + acknowledgedWrites
        + " acknowledged, violations "
        + violations
        + ", sequence back "
        + backwards()
        + ", failovers over "
        + bound.toSeconds()
        + " s "
        + slow();
  }

  int exitStatus() {
    return passed() ? 0 : 1;
  }
}
