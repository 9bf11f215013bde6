package io.leasehold.adapters.tool;

import com.fasterxml.jackson.databind.JsonNode;
import io.leasehold.fencing.Admission;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.GuardPipeline;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * A {@link FencedToolExecutor}'s calls as its journal sees them: the step that journals a call's
 * intent, admits and starts it, runs the tool and journals its end (steps 2 to 5 of the executor's
 * javadoc), and the listing of calls whose outcome nobody confirmed. The executor runs the step
 * only after its pipeline has verified the token and checked the call's scope.
 */
final class JournaledCalls {
  private final ToolJournal journal;
  private final JournalRedaction redaction;

  JournaledCalls(ToolJournal journal, JournalRedaction redaction) {
    this.journal = journal;
    this.redaction = redaction;
  }

  /** Journals the intent, admits and starts the call, runs the tool, journals its end. */
  ToolResult run(GuardPipeline.Call<?> request, FencedTool tool, JsonNode arguments) {
    FencingToken token = request.token();
    String toolName = tool.name();
    Optional<String> idempotencyKey = tool.idempotencyKey(arguments);
    UUID callId = UUID.randomUUID();
    ToolCall call =
        new ToolCall(
            callId,
            toolName,
            token,
            requireRedacted(redaction.arguments(toolName, arguments), "arguments"),
            idempotencyKey,
            ToolCall.State.INTENDED,
            Optional.empty(),
            Optional.empty());
    // Ask again right before the journal admits: the lease may have been lost since the token
    // was presented (scope check, redaction).
    request.presentAgain();
    Admission admission = journal.start(call);

    if (idempotencyKey.isPresent()) {
      Optional<JsonNode> earlier =
          journal.finishedResult(token.key(), toolName, idempotencyKey.get());
      if (earlier.isPresent()) {
        journal.finished(callId, earlier.get());
        return new ToolResult(callId, earlier.get(), admission, true);
      }
    }
    JsonNode result;
    try {
      result = tool.call(new ToolInvocation(callId, toolName, arguments, token, idempotencyKey));
      if (result == null) {
        throw new IllegalStateException("tool " + toolName + " returned null");
      }
    } catch (Exception e) {
      journal.failed(callId, redaction.error(toolName, e));
      throw new ToolCallFailedException(callId, toolName, e);
    }
    journal.finished(callId, requireRedacted(redaction.result(toolName, result), "result"));
    return new ToolResult(callId, result, admission, false);
  }

  private static JsonNode requireRedacted(JsonNode node, String what) {
    if (node == null) {
      throw new IllegalStateException(
          "the journal redaction returned null for a " + what + "; return a NullNode");
    }
    return node;
  }

  /** Calls of the token's session, of runs with a lower fence, never confirmed; oldest first. */
  List<ToolCall> inDoubtBefore(FencingToken token) {
    List<ToolCall> out = new ArrayList<>();
    for (ToolCall c : journal.calls(token.key())) {
      if (c.inDoubt() && c.token().fence() < token.fence()) {
        out.add(c);
      }
    }
    return out;
  }
}
