package io.leasehold.adapters.tool;

import com.fasterxml.jackson.databind.JsonNode;
import io.leasehold.fencing.Admission;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.ResettableMarks;
import io.leasehold.fencing.StaleFenceException;
import java.util.List;
import java.util.UUID;

/**
 * Where a {@link FencedToolExecutor} records its calls and keeps its high-water marks. The
 * admission and the STARTED record are one atomic step, so the journal is also the executor's
 * guard: {@link FileToolJournal} makes it hold across processes, {@link MemoryToolJournal} only
 * within one.
 *
 * <p>Its marks are read and reset through {@link ResettableMarks}. A journal does not check who
 * resets a mark (whoever holds the journal is its administrator): give operators the executor,
 * whose {@link FencedToolExecutor#resetMark} checks its admin policy first. Each journal dates its
 * resets where its records live (its own clock, or the database's).
 *
 * <p>Implementations are thread-safe.
 */
public interface ToolJournal extends ResettableMarks {
  /**
   * Records a call before anything else happens to it, unless the key's mark is already above its
   * fence: a stale run's calls add nothing to the journal (CONTRACT C21), and are counted by the
   * executor's listener instead.
   *
   * @param call the call, in state {@link ToolCall.State#INTENDED}
   * @throws StaleFenceException if the key's mark is above the call's fence; nothing recorded
   */
  void intended(ToolCall call);

  /**
   * Admits the token for the call and records the call as started, atomically: once a higher fence
   * is admitted for the key, no lower one starts a call.
   *
   * @param token the call's token
   * @param callId the call, recorded as intended
   * @return the admission
   * @throws StaleFenceException if the fence is below the key's mark; the call is recorded as
   *     refused
   * @throws DuplicateCallException if the same run has a call with the same tool and idempotency
   *     key in flight; the call is recorded as refused
   */
  Admission admitAndStart(FencingToken token, UUID callId);

  /**
   * Records a call and admits and starts it in one step: what {@link #intended} and then {@link
   * #admitAndStart} do, with the same refusals. A journal may write both records at once (the file
   * journal forces them to disk with one force); this default calls the two.
   *
   * @param call the call, in state {@link ToolCall.State#INTENDED}
   * @return the admission
   * @throws StaleFenceException if the key's mark is above the call's fence; nothing recorded
   * @throws DuplicateCallException if the same run has a call with the same tool and idempotency
   *     key in flight; the call is recorded as refused
   */
  default Admission start(ToolCall call) {
    intended(call);
    return admitAndStart(call.token(), call.callId());
  }

  /**
   * Admits a token without a call: raises the key's mark to its fence, so that from now on no lower
   * fence starts a call. A new run calls it as it starts (through {@link
   * FencedToolExecutor#startRun}), so an older run is refused even before the new one calls a tool.
   *
   * @param token the new run's token
   * @return the admission, with the mark before it
   * @throws StaleFenceException if the fence is below the key's mark; nothing changed
   */
  Admission admit(FencingToken token);

  /**
   * Records that the tool returned.
   *
   * @param callId the call
   * @param result what it returned
   */
  void finished(UUID callId, JsonNode result);

  /**
   * Records that the tool threw.
   *
   * @param callId the call
   * @param error a description of what it threw
   */
  void failed(UUID callId, String error);

  /**
   * Every call recorded for a key, in the order they were first recorded, each in its latest state.
   *
   * @param key the lease key
   * @return the calls
   */
  List<ToolCall> calls(LeaseKey key);

  /**
   * The result of the first finished call of a key with this tool and idempotency key, for
   * answering a repeated call. The default scans {@link #calls}; the shipped journals keep an
   * index.
   *
   * @param key the lease key
   * @param tool the tool
   * @param idempotencyKey the idempotency key
   * @return the result, or empty if no such call finished
   */
  default java.util.Optional<JsonNode> finishedResult(
      LeaseKey key, String tool, String idempotencyKey) {
    for (ToolCall c : calls(key)) {
      if (c.state() == ToolCall.State.FINISHED
          && c.tool().equals(tool)
          && c.idempotencyKey().equals(java.util.Optional.of(idempotencyKey))) {
        return c.result();
      }
    }
    return java.util.Optional.empty();
  }
}
