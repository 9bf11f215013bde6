package io.leasehold.adapters.agent;

import io.leasehold.fencing.internal.Arguments;
import java.util.UUID;

/**
 * What became of a fenced agent tool call: it ran, or it was refused and the run must stop.
 *
 * @param <R> what the framework's tool returns
 */
public sealed interface AgentToolOutcome<R> {
  /**
   * The call was admitted and the tool returned.
   *
   * @param value what the tool returned
   * @param callId the journal's id for the call
   * @param <R> what the framework's tool returns
   */
  record Ran<R>(R value, UUID callId) implements AgentToolOutcome<R> {
    /**
     * Checks required components.
     *
     * @throws IllegalArgumentException if the call id is null
     */
    public Ran {
      Arguments.required(callId, "callId");
    }
  }

  /**
   * The call was a retry of a finished call with the same idempotency key: the tool did not run
   * again, and this is what the journal recorded of the first call's result.
   *
   * @param journaledResult the first call's result as journaled, or null if it recorded none
   * @param callId the journal's id for this call
   * @param <R> what the framework's tool returns
   */
  record Replayed<R>(String journaledResult, UUID callId) implements AgentToolOutcome<R> {
    /**
     * Checks required components.
     *
     * @throws IllegalArgumentException if the call id is null
     */
    public Replayed {
      Arguments.required(callId, "callId");
    }
  }

  /**
   * The call was refused; the tool did not run.
   *
   * @param stop why, and what to tell the model
   * @param <R> what the framework's tool returns
   */
  record Refused<R>(RunStop stop) implements AgentToolOutcome<R> {
    /**
     * Checks required components.
     *
     * @throws IllegalArgumentException if the stop is null
     */
    public Refused {
      Arguments.required(stop, "stop");
    }
  }
}
