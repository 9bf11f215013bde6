package io.leasehold.adapters.agent;

import com.fasterxml.jackson.databind.JsonNode;
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
   * @param journaled the first call's result as journaled (JSON null if it recorded none)
   * @param callId the journal's id for this call
   * @param <R> what the framework's tool returns
   */
  record Replayed<R>(JsonNode journaled, UUID callId) implements AgentToolOutcome<R> {
    /**
     * Checks required components.
     *
     * @throws IllegalArgumentException if a component is null
     */
    public Replayed {
      Arguments.allRequired(journaled, callId);
    }

    /**
     * The first call's result as text: a journaled string as it is, JSON null as null, any other
     * value as its JSON text.
     *
     * @return the text, or null if the journal recorded none
     */
    public String journaledResult() {
      if (journaled.isNull()) {
        return null;
      }
      return journaled.isTextual() ? journaled.textValue() : journaled.toString();
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
