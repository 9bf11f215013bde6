package io.leasehold.adapters.tool;

import com.fasterxml.jackson.databind.JsonNode;
import io.leasehold.fencing.Admission;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.MarkReset;
import io.leasehold.fencing.StaleFenceException;
import io.leasehold.fencing.mark.MemoryMarkStore;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.UUID;

/**
 * The calls and marks a journal knows, shared by both journals. Not thread-safe.
 *
 * <p>Memory follows the live state, not the history (CONTRACT C21): calls in doubt, finished calls
 * with an idempotency key (a retry is answered from them), marks and resets are kept; of the
 * settled calls nobody can ask about again (finished without a key, failed, refused) only the
 * latest {@value #SETTLED_KEPT} are.
 */
final class JournalState {
  /** How many settled calls without a later use are kept for {@link #calls(LeaseKey)}. */
  static final int SETTLED_KEPT = 10_000;

  private final Map<UUID, ToolCall> calls = new LinkedHashMap<>();

  /** Settled calls without a later use, oldest first: dropped past {@link #SETTLED_KEPT}. */
  private final java.util.ArrayDeque<UUID> settled = new java.util.ArrayDeque<>();

  /** Started calls with an idempotency key, by run, tool and key: duplicates are one lookup. */
  private final Map<String, java.util.Set<UUID>> inFlight = new HashMap<>();

  /** The marks and resets: the memory medium's rules, shared with the in-memory guard. */
  private final MemoryMarkStore marks = MemoryMarkStore.unbounded();

  /** The first finished call per (key, tool, idempotency key): replays are one lookup. */
  private final Map<String, ToolCall> firstFinished = new HashMap<>();

  /**
   * Per key, the highest fence the journal's lines show admitted since the key's last reset (or
   * that reset's mark): the evidence the file journal's marks may never be below (CONTRACT C16).
   */
  private final Map<LeaseKey, Long> evidence = new LinkedHashMap<>();

  private static String idem(LeaseKey key, String tool, String idempotencyKey) {
    return key.accountId()
        + '\u0000'
        + key.sessionId()
        + '\u0000'
        + tool
        + '\u0000'
        + idempotencyKey;
  }

  /** The in-flight index's key: one run's calls of one tool with one idempotency key. */
  private static String runIdem(ToolCall c) {
    return idem(c.token().key(), c.tool(), c.idempotencyKey().orElseThrow())
        + '\u0000'
        + c.token().runId();
  }

  Optional<JsonNode> finishedResult(LeaseKey key, String tool, String idempotencyKey) {
    ToolCall c = firstFinished.get(idem(key, tool, idempotencyKey));
    return c == null ? Optional.empty() : c.result();
  }

  /** A started line read back from a journal: admitted when it was written, not checked again. */
  void replayStarted(FencingToken token, UUID callId) {
    marks.restore(token.key(), token.fence());
    evidence.merge(token.key(), token.fence(), Math::max);
    update(callId, ToolCall.State.STARTED, Optional.empty(), Optional.empty());
  }

  List<ToolCall> allCalls() {
    return List.copyOf(calls.values());
  }

  Map<LeaseKey, Long> allMarks() {
    return marks.snapshot();
  }

  void intended(ToolCall call) {
    if (calls.putIfAbsent(call.callId(), call) != null) {
      throw new IllegalStateException("call " + call.callId() + " is already journaled");
    }
  }

  /** {@link #intended} for a call not recorded yet; nothing for null (recorded before). */
  void intendedUnlessNull(ToolCall call) {
    if (call != null) {
      intended(call);
    }
  }

  /** Checks the token against the mark; does not change anything. */
  long check(FencingToken token) {
    long mark = marks.read(null, token.key()).orElse(0);
    if (token.fence() < mark) {
      throw new StaleFenceException(token, mark);
    }
    return mark;
  }

  /**
   * A call of the same run with the same tool and idempotency key that is in flight (started, not
   * finished): the reservation that makes concurrent duplicates run the tool once. A started call
   * of an earlier run is in doubt, not in flight: a new run's retry may go ahead.
   */
  Optional<ToolCall> inFlightDuplicate(UUID callId) {
    ToolCall call = calls.get(callId);
    if (call == null || call.idempotencyKey().isEmpty()) {
      return Optional.empty();
    }
    java.util.Set<UUID> started = inFlight.getOrDefault(runIdem(call), java.util.Set.of());
    for (UUID other : started) {
      if (!other.equals(callId)) {
        return Optional.of(calls.get(other));
      }
    }
    return Optional.empty();
  }

  /** {@link #inFlightDuplicate} for a call not recorded yet. */
  Optional<ToolCall> inFlightDuplicateOf(ToolCall call) {
    if (call.idempotencyKey().isEmpty()) {
      return Optional.empty();
    }
    java.util.Set<UUID> started = inFlight.getOrDefault(runIdem(call), java.util.Set.of());
    return started.stream().filter(id -> !id.equals(call.callId())).findFirst().map(calls::get);
  }

  ToolCall call(UUID callId) {
    return calls.get(callId);
  }

  Admission admit(FencingToken token) {
    return marks.admit(null, token);
  }

  Admission started(FencingToken token, UUID callId) {
    Admission admission = marks.admit(null, token);
    update(callId, ToolCall.State.STARTED, Optional.empty(), Optional.empty());
    return admission;
  }

  void refused(UUID callId, long highest) {
    update(
        callId,
        ToolCall.State.REFUSED,
        Optional.empty(),
        Optional.of("stale; highest fence " + highest));
  }

  void refusedDuplicate(UUID callId, UUID inFlight) {
    update(
        callId,
        ToolCall.State.REFUSED,
        Optional.empty(),
        Optional.of("duplicate of call " + inFlight + " in flight"));
  }

  /** Sets a key's mark from the journal's separate marks file, the authority for its keys. */
  void overrideMark(LeaseKey key, long mark) {
    marks.restore(key, mark);
  }

  void finished(UUID callId, JsonNode result) {
    update(callId, ToolCall.State.FINISHED, Optional.of(result), Optional.empty());
    ToolCall c = calls.get(callId);
    if (c.idempotencyKey().isPresent()) {
      firstFinished.putIfAbsent(idem(c.token().key(), c.tool(), c.idempotencyKey().get()), c);
    }
  }

  void failed(UUID callId, String error) {
    update(callId, ToolCall.State.FAILED, Optional.empty(), Optional.of(error));
  }

  private void update(
      UUID callId, ToolCall.State state, Optional<JsonNode> result, Optional<String> error) {
    ToolCall call = calls.get(callId);
    if (call == null) {
      throw new IllegalStateException("call " + callId + " was never journaled as intended");
    }
    ToolCall updated = call.with(state, result, error);
    calls.put(callId, updated);
    if (call.idempotencyKey().isPresent()) {
      String k = runIdem(call);
      if (state == ToolCall.State.STARTED) {
        inFlight.computeIfAbsent(k, x -> new java.util.LinkedHashSet<>()).add(callId);
      } else if (call.state() == ToolCall.State.STARTED) {
        java.util.Set<UUID> ids = inFlight.get(k);
        ids.remove(callId);
        if (ids.isEmpty()) {
          inFlight.remove(k);
        }
      }
    }
    boolean keptForRetries = state == ToolCall.State.FINISHED && call.idempotencyKey().isPresent();
    if (!updated.inDoubt() && !keptForRetries) {
      settled.addLast(callId);
      if (settled.size() > SETTLED_KEPT) {
        calls.remove(settled.removeFirst());
      }
    }
  }

  List<ToolCall> calls(LeaseKey key) {
    List<ToolCall> out = new ArrayList<>();
    for (ToolCall c : calls.values()) {
      if (c.token().key().equals(key)) {
        out.add(c);
      }
    }
    return out;
  }

  MarkReset reset(LeaseKey key, long newMark, String operator, String reason, Instant at) {
    return marks.reset(null, key, newMark, operator, reason, at);
  }

  /**
   * A reset read back from a journal. A reset to 0 keeps the key with a mark of 0 (issue 46): a
   * compaction then writes that mark, so the fences of the calls it keeps never come back as the
   * key's mark.
   */
  void applyReset(MarkReset reset) {
    marks.restore(reset);
    evidence.put(reset.key(), reset.newMark()); // the evidence restarts at the operator's mark
  }

  /**
   * A compacted journal's record of a key's evidence, read after the calls it kept: it sets the
   * evidence, so a call started before the key's last reset does not raise it again.
   */
  void applyEvidence(LeaseKey key, long fence) {
    evidence.put(key, fence);
  }

  /** The highest fence admitted for the key since its last reset, or 0. */
  long evidence(LeaseKey key) {
    return evidence.getOrDefault(key, 0L);
  }

  /** {@link #evidence(LeaseKey)} of every key the journal names, in the order first named. */
  Map<LeaseKey, Long> allEvidence() {
    return java.util.Collections.unmodifiableMap(evidence);
  }

  List<MarkReset> resets() {
    return marks.resets(null);
  }

  /** The key's mark; empty if it has none, or 0 after a reset. */
  OptionalLong mark(LeaseKey key) {
    return marks.read(null, key);
  }
}
