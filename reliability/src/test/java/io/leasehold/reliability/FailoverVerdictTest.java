package io.leasehold.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Issue 33: the asynchronous run lost 2 acknowledged writes and still exited 0, because only the
 * checker's violations counted. The verdict now fails on a lost write, a violation, a sequence that
 * went back and a slow failover; the negative control passes only if it detected a loss.
 */
class FailoverVerdictTest {
  private static final Duration BOUND = Duration.ofSeconds(60);

  private static FailoverVerdict run(
      int violations, int lost, List<Long> jumps, List<Long> unavailable, boolean expectLoss) {
    return new FailoverVerdict(violations, 281_312, lost, jumps, unavailable, BOUND, expectLoss);
  }

  @Test
  void oneLostAcknowledgedWriteFailsTheRun() {
    FailoverVerdict v = run(0, 1, List.of(4L, 0L), List.of(9_000L), false);
    assertThat(v.exitStatus()).isEqualTo(1);
    assertThat(v.summary())
        .startsWith("VERDICT: FAIL (1 acknowledged write(s) lost)")
        .contains("lost 1 of 281312");
  }

  @Test
  void aCleanRunPassesAndAJumpOfZeroIsNoFault() {
    FailoverVerdict v = run(0, 0, List.of(4L, 45L, 0L, 1L), List.of(9_000L, 12_000L), false);
    assertThat(v.exitStatus()).isZero();
    assertThat(v.summary()).startsWith("VERDICT: PASS").contains("violations 0", "sequence back 0");
  }

  @Test
  void violationsASequenceThatWentBackAndASlowFailoverEachFailTheRun() {
    assertThat(run(3, 0, List.of(1L), List.of(1_000L), false).failures())
        .containsExactly("3 checker violation(s)");
    assertThat(run(0, 0, List.of(5L, -2L), List.of(1_000L), false).failures())
        .containsExactly("the fence sequence went back at 1 fault(s)");
    assertThat(run(0, 0, List.of(5L), List.of(61_000L), false).failures())
        .containsExactly("1 failover(s) took longer than 60 s");
  }

  @Test
  void theNegativeControlPassesOnlyWhenItDetectedALoss() {
    assertThat(run(0, 2, List.of(3L), List.of(9_000L), true).exitStatus()).isZero();
    FailoverVerdict nothingLost = run(0, 0, List.of(3L), List.of(9_000L), true);
    assertThat(nothingLost.exitStatus()).isEqualTo(1);
    assertThat(nothingLost.summary())
        .contains("detected no loss")
        .contains("[negative control: loss expected]");
  }
}
