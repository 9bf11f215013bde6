package io.leasehold.adk;

import io.leasehold.fencing.LeaseholdException;

/**
 * Thrown for a tool call that reached ADK's tool dispatch without passing an {@link AdkToolFence}:
 * the tool did not run. Its message says how to fence the tool.
 */
public class UnfencedToolException extends LeaseholdException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception.
   *
   * @param message what happened and how to repair it
   */
  public UnfencedToolException(String message) {
    super(message);
  }
}
