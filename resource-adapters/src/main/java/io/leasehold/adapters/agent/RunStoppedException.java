package io.leasehold.adapters.agent;

import io.leasehold.fencing.LeaseholdException;

/**
 * Thrown out of a fenced agent tool call to end the agent loop: the run was superseded, lost its
 * lease or presented a token that failed verification, and the tool did not run. Not worth retrying
 * with the same run; its message is {@link RunStop#messageForModel()}, so a framework that turns
 * tool exceptions into text shows the model why it must stop.
 *
 * <p>It deliberately has no cause: frameworks that unwrap causes (LangChain4j's error handlers do)
 * would otherwise see the underlying refusal instead of this signal. The refusal is in {@link
 * #stop()}.
 */
public class RunStoppedException extends LeaseholdException {
  private static final long serialVersionUID = 1L;

  private final transient RunStop stop;

  /**
   * Creates the exception.
   *
   * @param stop why the run must stop
   */
  public RunStoppedException(RunStop stop) {
    super(stop.messageForModel());
    this.stop = stop;
  }

  /**
   * Why the run must stop.
   *
   * @return the refusal
   */
  public RunStop stop() {
    return stop;
  }
}
