package io.leasehold.adapters.agenttest;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.adapters.tool.ToolCall;
import io.leasehold.lease.Lease;
import org.junit.jupiter.api.Test;

/**
 * The shared agent-tool scenarios, and those of a framework that can run one turn's tool calls in
 * parallel: the fence must refuse every call of a superseded run however the calls interleave, and
 * run and journal every call of a current run.
 */
public abstract class ParallelToolCallScenarios extends AgentToolFenceScenarios {
  /**
   * The scenarios, for a framework whose fence's errors say what follows.
   *
   * @param howToPassALease see {@link AgentToolFenceScenarios}
   * @param howTheResolverErrorNamesACall see {@link AgentToolFenceScenarios}
   */
  protected ParallelToolCallScenarios(
      String howToPassALease, String howTheResolverErrorNamesACall) {
    super(howToPassALease, howTheResolverErrorNamesACall);
  }

  /**
   * Runs one conversation turn as {@link #turn} does, but with the framework running the turn's
   * tool calls in parallel.
   *
   * @param lease the run whose token the turn carries
   * @param endRunOnRefusal the fence's option of that name
   * @param answer the model's closing answer
   * @param toolCalls tool name, then arguments, repeated
   * @return the answer the framework returned, and the tool results the model read
   * @throws Exception whatever the framework threw
   */
  protected abstract Turn turnInParallel(
      Lease lease, boolean endRunOnRefusal, String answer, String... toolCalls) throws Exception;

  @Test
  void parallelCallsOfASupersededTurnAreAllRefused() throws Exception {
    Lease desktop = supersededDesktop();

    Turn turn =
        turnInParallel(desktop, false, "stopped", alternatingSendAndBook("a", "b", "c", "d"));

    assertThat(turn.answer()).isEqualTo("stopped");
    assertThat(world.effects).isEmpty();
    assertThat(turn.toolResultsSeen())
        .hasSize(4)
        .allSatisfy(r -> assertThat(r).contains("was NOT run"));
    assertThat(stops).hasSize(1);
    assertThat(callsOf(desktop)).isEmpty(); // issue 27: refused calls add nothing
  }

  @Test
  void parallelCallsOfACurrentRunAllRun() throws Exception {
    Lease desktop = acquire("desktop");

    Turn turn = turnInParallel(desktop, true, "ok", alternatingSendAndBook("a", "b", "c"));

    assertThat(turn.answer()).isEqualTo("ok");
    assertThat(world.effects).containsExactlyInAnyOrder("sent:a", "booked:b", "sent:c");
    assertThat(callsOf(desktop))
        .hasSize(3)
        .allSatisfy(c -> assertThat(c.state()).isEqualTo(ToolCall.State.FINISHED));
  }
}
