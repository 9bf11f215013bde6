package io.leasehold.adapters.tool;

import com.fasterxml.jackson.databind.JsonNode;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.internal.Arguments;
import java.util.Optional;
import java.util.UUID;

/**
 * A call as the journal knows it: what was asked, by which run, and how far it got.
 *
 * @param callId the call's id
 * @param tool the tool's name
 * @param token the token the call was made under
 * @param arguments the arguments
 * @param idempotencyKey the tool's idempotency key, if any
 * @param state how far the call got
 * @param result the result, when {@link State#FINISHED}
 * @param error what went wrong, when {@link State#FAILED}, or the highest fence when {@link
 *     State#REFUSED}
 */
public record ToolCall(
    UUID callId,
    String tool,
    FencingToken token,
    JsonNode arguments,
    Optional<String> idempotencyKey,
    State state,
    Optional<JsonNode> result,
    Optional<String> error) {

  /** How far a call got. */
  public enum State {
    /** Recorded before admission; the tool was not started, unless the record is all we have. */
    INTENDED,
    /** Admitted and handed to the tool; not confirmed. */
    STARTED,
    /** The tool returned. */
    FINISHED,
    /** The tool threw. */
    FAILED,
    /** The fence was stale; the tool was never started. */
    REFUSED
  }

  /**
   * Checks required components.
   *
   * @throws IllegalArgumentException if a component is null
   */
  public ToolCall {
    Arguments.allRequired(callId, tool, token, arguments, idempotencyKey, state, result, error);
  }

  /**
   * Whether nobody knows if the tool's effect happened: the call was intended or started and never
   * confirmed. After a crash even an {@link State#INTENDED} call may have started.
   *
   * @return true for INTENDED and STARTED
   */
  public boolean inDoubt() {
    return state == State.INTENDED || state == State.STARTED;
  }

  ToolCall with(State newState, Optional<JsonNode> newResult, Optional<String> newError) {
    return new ToolCall(
        callId, tool, token, arguments, idempotencyKey, newState, newResult, newError);
  }
}
