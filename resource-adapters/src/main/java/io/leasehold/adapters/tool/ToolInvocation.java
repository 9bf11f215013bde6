package io.leasehold.adapters.tool;

import com.fasterxml.jackson.databind.JsonNode;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.internal.Arguments;
import java.util.Optional;
import java.util.UUID;

/**
 * One admitted call, as the tool sees it.
 *
 * @param callId the journal's id for this call
 * @param tool the tool's name
 * @param arguments the arguments
 * @param token the admitted token, to forward downstream
 * @param idempotencyKey the tool's idempotency key for this call, if it declared one
 */
public record ToolInvocation(
    UUID callId,
    String tool,
    JsonNode arguments,
    FencingToken token,
    Optional<String> idempotencyKey) {
  /**
   * Checks required components.
   *
   * @throws IllegalArgumentException if a component is null
   */
  public ToolInvocation {
    Arguments.allRequired(callId, tool, arguments, token, idempotencyKey);
  }
}
