package io.leasehold.adapters.agent;

/**
 * Told when a run's tool call is refused, so the application can end the run (cancel the agent
 * loop, tell the user which device took over). Called on the thread that made the call, once per
 * run for {@link io.leasehold.fencing.Refusal.Reason#SUPERSEDED} and {@link
 * io.leasehold.fencing.Refusal.Reason#LEASE_LOST}, and on every refusal for the other reasons (a
 * token that failed verification proves nothing about the run it names). An exception it throws
 * propagates to the caller of the tool; the refusal stands.
 */
@FunctionalInterface
public interface RunStopListener {
  /**
   * The run must stop.
   *
   * @param stop why
   */
  void onStop(RunStop stop);
}
