package io.leasehold.adapters.agent;

import io.leasehold.fencing.LeaseholdException;

/**
 * A tool call could not be tied to a live run of a session, so it was refused and the tool did not
 * run. The message says what is missing: usually the application did not pass the run's lease with
 * the framework invocation, its session resolver could not map the conversation, or no run of that
 * session is registered in {@link SessionLeases}. A configuration error, not a race: retrying does
 * not help until the wiring is fixed.
 */
public class UnresolvedSessionException extends LeaseholdException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception; only the agent fences do.
   *
   * @param message what is missing and how to supply it
   * @param cause what the resolver threw, or null
   */
  UnresolvedSessionException(String message, Throwable cause) {
    super(message, cause);
  }
}
