package io.leasehold.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The checker is proven able to fail: hand-made histories with each kind of violation. */
class CheckerTest {
  private static final LeaseKey KEY = LeaseKey.of("torture", "session-0");
  private static final Instant T0 = Instant.parse("2026-12-01T12:00:00Z");
  private long clock;

  private static Instant at(long millis) {
    return T0.plusMillis(millis);
  }

  private static FencingToken token(long fence) {
    return new FencingToken(KEY, fence, UUID.nameUUIDFromBytes(("run" + fence).getBytes()));
  }

  /**
   * An operation of {@code worker} on {@link #KEY} with the token of {@code fence}, answered OK
   * unless set otherwise, that took the next two ticks of the local clock.
   */
  private final class OpSpec {
    private final String worker;
    private final Op.Type type;
    private final long fence;
    private Op.Outcome outcome = Op.Outcome.OK;
    private String adapter;
    private String writeId;
    private boolean inFlight;
    private Instant dbStart;
    private Instant dbExpires;
    private Instant dbNow;
    private String detail;

    OpSpec(String worker, Op.Type type, long fence) {
      this.worker = worker;
      this.type = type;
      this.fence = fence;
    }

    OpSpec outcome(Op.Outcome outcome) {
      this.outcome = outcome;
      return this;
    }

    /** The database's times: the lease's start, the expiry granted, the answer's time. */
    OpSpec times(Instant start, Instant expires, Instant now) {
      this.dbStart = start;
      this.dbExpires = expires;
      this.dbNow = now;
      return this;
    }

    OpSpec write(String adapter, String writeId, boolean inFlight) {
      this.adapter = adapter;
      this.writeId = writeId;
      this.inFlight = inFlight;
      return this;
    }

    OpSpec detail(String detail) {
      this.detail = detail;
      return this;
    }

    Op op() {
      return new Op(
          "p",
          worker,
          type,
          KEY,
          token(fence),
          outcome,
          adapter,
          writeId,
          inFlight,
          dbStart,
          dbExpires,
          dbNow,
          ++clock,
          ++clock,
          detail);
    }
  }

  private Op acquire(String worker, long fence, long startMs, long ttlMs) {
    return new OpSpec(worker, Op.Type.ACQUIRE, fence)
        .times(at(startMs), at(startMs + ttlMs), at(startMs))
        .op();
  }

  private Op renew(String worker, long fence, long nowMs, Long newExpiryMs, Op.Outcome outcome) {
    return new OpSpec(worker, Op.Type.RENEW, fence)
        .outcome(outcome)
        .times(
            null,
            newExpiryMs == null ? null : at(newExpiryMs),
            outcome == Op.Outcome.ERROR ? null : at(nowMs))
        .op();
  }

  private Op release(String worker, long fence, long nowMs) {
    return new OpSpec(worker, Op.Type.RELEASE, fence).times(null, null, at(nowMs)).op();
  }

  private Op write(
      String worker, long fence, String adapter, String id, Op.Outcome outcome, boolean inFlight) {
    return new OpSpec(worker, Op.Type.WRITE, fence)
        .outcome(outcome)
        .write(adapter, id, inFlight)
        .op();
  }

  private Op lossKnown(String worker, long fence) {
    return new OpSpec(worker, Op.Type.LOSS_KNOWN, fence).detail("test").op();
  }

  /** Resource logs consistent with the given admissions (jdbc ids, file tokens). */
  private static TortureResources.Logs logs(
      List<TortureResources.Admitted> jdbc, List<TortureResources.Admitted> file) {
    Map<String, Map<LeaseKey, List<TortureResources.Admitted>>> admitted = new HashMap<>();
    admitted.put("jdbc", Map.of(KEY, jdbc));
    admitted.put("file", Map.of(KEY, file));
    admitted.put("tool", Map.of());
    Set<String> ids = new java.util.HashSet<>();
    jdbc.forEach(a -> ids.add(a.id()));
    Map<LeaseKey, FencingToken> fileWriter =
        file.isEmpty() ? Map.of() : Map.of(KEY, file.get(file.size() - 1).token());
    Map<LeaseKey, String> value =
        jdbc.isEmpty() ? Map.of() : Map.of(KEY, jdbc.get(jdbc.size() - 1).id());
    return new TortureResources.Logs(
        admitted, Map.of("jdbc", ids, "tool", Set.of()), fileWriter, value);
  }

  private static TortureResources.Logs noResources() {
    return logs(List.of(), List.of());
  }

  private static List<String> rules(List<Checker.Violation> violations) {
    List<String> r = new ArrayList<>();
    violations.forEach(v -> r.add(v.rule()));
    return r;
  }

  /** What the checker finds in a history whose resources admitted nothing. */
  private static List<Checker.Violation> violations(Op... history) {
    return Checker.check(List.of(history), noResources());
  }

  /** The rules a history breaks, its resources having admitted nothing. */
  private static List<String> rulesBroken(Op... history) {
    return rules(violations(history));
  }

  @Test
  void aCleanHistoryPasses() {
    List<Op> h =
        List.of(
            acquire("a", 1, 0, 1000),
            renew("a", 1, 500, 1500L, Op.Outcome.OK),
            write("a", 1, "jdbc", "x1", Op.Outcome.OK, false),
            release("a", 1, 900),
            acquire("b", 2, 950, 1000),
            write("b", 2, "jdbc", "x2", Op.Outcome.OK, false),
            write("a", 1, "jdbc", "x3", Op.Outcome.STALE, true));
    List<TortureResources.Admitted> jdbc =
        List.of(
            new TortureResources.Admitted(token(1), "x1"),
            new TortureResources.Admitted(token(2), "x2"));
    assertThat(Checker.check(h, logs(jdbc, List.of()))).isEmpty();
  }

  @Test
  void overlappingLeasesAreC1() {
    List<Checker.Violation> v =
        violations(
            acquire("a", 1, 0, 1000),
            renew("a", 1, 800, 1800L, Op.Outcome.OK),
            acquire("b", 2, 1200, 1000));
    assertThat(rules(v)).containsExactly("C1");
    assertThat(v.get(0).context()).hasSizeGreaterThanOrEqualTo(3);
    assertThat(v.get(0).toString()).contains("held it until at least");
  }

  @Test
  void anUnconfirmedRenewalNeverCausesAFalseReport() {
    // a's renewal failed with an unknown outcome; b acquiring after a's confirmed expiry is fine.
    assertThat(
            violations(
                acquire("a", 1, 0, 1000),
                renew("a", 1, 0, null, Op.Outcome.ERROR),
                acquire("b", 2, 1000, 1000)))
        .isEmpty();
  }

  /**
   * Regression: the long run's first false report. A worker JVM was killed after sending its
   * release and before recording the answer; the next run's acquire was then flagged as an overlap.
   * A release that was sent but never answered ends the lease no earlier than the run's last
   * confirmed answer.
   */
  @Test
  void aReleaseKilledBeforeItsAnswerWasRecordedIsNoOverlap() {
    Op pending = new OpSpec("a", Op.Type.RELEASE, 1).outcome(Op.Outcome.PENDING).op();
    Op acquireA = acquire("a", 1, 0, 1000);
    Op renewA = renew("a", 1, 100, 1100L, Op.Outcome.OK);
    assertThat(violations(acquireA, renewA, pending, acquire("b", 2, 150, 1000))).isEmpty();
    // Before the acquire of b, the run's last confirmed answer: still an overlap.
    assertThat(rulesBroken(acquireA, renewA, pending, acquire("b", 2, 50, 1000)))
        .containsExactly("C1");
  }

  @Test
  void aLowerFenceAfterAHigherOneIsC3() {
    assertThat(
            rulesBroken(acquire("a", 5, 0, 1000), release("a", 5, 100), acquire("b", 4, 200, 1000)))
        .containsExactly("C3");
  }

  @Test
  void aRenewalOrReleaseAfterExpiryIsC4() {
    assertThat(rulesBroken(acquire("a", 1, 0, 1000), renew("a", 1, 1500, 2500L, Op.Outcome.OK)))
        .containsExactly("C4");
    assertThat(rulesBroken(acquire("a", 1, 0, 1000), release("a", 1, 1200))).containsExactly("C4");
  }

  @Test
  void aWriteReachingAResourceAfterTheLossWasKnownIsC6() {
    Op held = acquire("a", 1, 0, 1000);
    Op loss = lossKnown("a", 1);
    assertThat(rulesBroken(held, loss, write("a", 1, "jdbc", "x1", Op.Outcome.STALE, false)))
        .containsExactly("C6");
    // The same write refused locally, or delivered as an in-flight request, is allowed.
    assertThat(
            violations(
                held,
                loss,
                write("a", 1, "jdbc", "x1", Op.Outcome.LOCAL_REFUSED, false),
                write("a", 1, "jdbc", "x2", Op.Outcome.STALE, true)))
        .isEmpty();
  }

  @Test
  void aResourceAdmittingALowerFenceIsC9() {
    List<Op> h =
        List.of(acquire("a", 1, 0, 1000), release("a", 1, 100), acquire("b", 2, 200, 1000));
    List<TortureResources.Admitted> jdbc =
        List.of(
            new TortureResources.Admitted(token(2), "x2"),
            new TortureResources.Admitted(token(1), "x1"));
    assertThat(rules(Checker.check(h, logs(jdbc, List.of())))).contains("C9");
  }

  @Test
  void aFinalStateOtherThanTheLastAdmittedWriteIsC10() {
    List<Op> h = List.of(acquire("a", 1, 0, 1000));
    List<TortureResources.Admitted> jdbc = List.of(new TortureResources.Admitted(token(1), "x1"));
    TortureResources.Logs good = logs(jdbc, List.of());
    TortureResources.Logs bad =
        new TortureResources.Logs(
            good.admitted(), good.acknowledgedIds(), good.finalFileWriter(), Map.of(KEY, "other"));
    assertThat(rules(Checker.check(h, bad))).containsExactly("C10");
  }

  @Test
  void anAcknowledgedWriteMissingFromTheResourceIsC10() {
    assertThat(
            rulesBroken(
                acquire("a", 1, 0, 1000),
                write("a", 1, "jdbc", "lost-write", Op.Outcome.OK, false),
                write("a", 1, "file", "f1", Op.Outcome.OK, false)))
        .containsExactlyInAnyOrder("C10", "C10");
  }

  @Test
  void aKeyThatStaysBlockedAfterTheFaultsIsALivenessFailure() {
    Op stuck = Op.injected("liveness", Op.Type.LIVENESS, KEY, Op.Outcome.ERROR, 1, "not acquired");
    assertThat(rulesBroken(stuck)).containsExactly("liveness");
  }

  @Test
  void historyLinesRoundTrip() {
    Op op = renew("a", 7, 100, 1100L, Op.Outcome.OK);
    assertThat(Op.fromJson(op.toJson())).isEqualTo(op);
  }
}
