package io.leasehold.adapters.tool;

import com.fasterxml.jackson.databind.JsonNode;
import io.leasehold.fencing.Admission;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.MarkReset;
import io.leasehold.fencing.StaleFenceException;
import io.leasehold.fencing.internal.Arguments;
import java.time.Clock;
import java.util.List;
import java.util.OptionalLong;
import java.util.UUID;

/**
 * A journal kept in memory: marks and calls are lost with the process, and it guards only executors
 * in this process. For tests, benchmarks, and tools whose effects need no record. Its marks and
 * resets are kept by a {@link io.leasehold.fencing.mark.MemoryMarkStore}, the memory medium the
 * in-memory guard uses too. Thread-safe.
 */
public final class MemoryToolJournal implements ToolJournal {
  private final JournalState state = new JournalState();
  private final Clock clock;

  /** Creates an empty journal that dates mark resets by the system clock (UTC). */
  public MemoryToolJournal() {
    this(Clock.systemUTC());
  }

  /**
   * Creates an empty journal.
   *
   * @param clock dates mark resets
   */
  public MemoryToolJournal(Clock clock) {
    this.clock = Arguments.required(clock, "clock");
  }

  @Override
  public synchronized void intended(ToolCall call) {
    state.check(call.token()); // a stale call adds nothing (issue 27, CONTRACT C21)
    state.intended(call);
  }

  @Override
  public synchronized Admission admitAndStart(FencingToken token, UUID callId) {
    java.util.Optional<ToolCall> duplicate = state.inFlightDuplicate(callId);
    if (duplicate.isPresent()) {
      state.refusedDuplicate(callId, duplicate.get().callId());
      ToolCall c = state.call(callId);
      throw new DuplicateCallException(
          c.tool(), c.idempotencyKey().orElseThrow(), duplicate.get().callId());
    }
    try {
      return state.started(token, callId);
    } catch (StaleFenceException e) {
      state.refused(callId, e.highestFence());
      throw e;
    }
  }

  @Override
  public synchronized Admission admit(FencingToken token) {
    Arguments.required(token, "token");
    return state.admit(token);
  }

  @Override
  public synchronized void finished(UUID callId, JsonNode result) {
    state.finished(callId, result);
  }

  @Override
  public synchronized void failed(UUID callId, String error) {
    state.failed(callId, error);
  }

  @Override
  public synchronized List<ToolCall> calls(LeaseKey key) {
    return state.calls(key);
  }

  @Override
  public synchronized OptionalLong highWaterMark(LeaseKey key) {
    return state.mark(key);
  }

  @Override
  public synchronized MarkReset resetMark(
      LeaseKey key, long newMark, String operator, String reason) {
    return state.reset(key, newMark, operator, reason, clock.instant());
  }

  @Override
  public synchronized java.util.Optional<JsonNode> finishedResult(
      LeaseKey key, String tool, String idempotencyKey) {
    return state.finishedResult(key, tool, idempotencyKey);
  }

  @Override
  public synchronized List<MarkReset> markResets() {
    return state.resets();
  }
}
