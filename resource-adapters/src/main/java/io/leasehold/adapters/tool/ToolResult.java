package io.leasehold.adapters.tool;

import com.fasterxml.jackson.databind.JsonNode;
import io.leasehold.fencing.Admission;
import io.leasehold.fencing.internal.Arguments;
import java.util.UUID;

/**
 * A completed call.
 *
 * @param callId the journal's id for this call
 * @param value what the tool returned
 * @param admission the admitted token and the mark before it
 * @param replayed true if the tool was not invoked because an earlier call with the same
 *     idempotency key had finished; {@code value} is that call's result
 */
public record ToolResult(UUID callId, JsonNode value, Admission admission, boolean replayed) {
  /**
   * Checks required components.
   *
   * @throws IllegalArgumentException if a component is null
   */
  public ToolResult {
    Arguments.allRequired(callId, value, admission);
  }
}
