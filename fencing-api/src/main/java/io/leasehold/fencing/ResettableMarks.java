package io.leasehold.fencing;

import java.util.List;
import java.util.OptionalLong;

/**
 * High-water marks an operator can read and, after an incident, reset (CONTRACT C17): the
 * administrative side every guard and every tool journal shares, so that one admin tool (for
 * example {@code ResetMarkCommand}, or an application's own endpoint) can serve them all.
 *
 * <p>A reset is the recovery after a forged token or a leaked key raised a mark no honest run can
 * reach (docs/security.md). Each one is recorded where the marks live (who, when, why, from what to
 * what) and is listed by {@link #markResets()}.
 *
 * <p>Guards check the operator against their {@link AdminPolicy} before they change anything. A
 * tool journal is storage: it does not check, and whoever holds a journal can reset its marks; give
 * operators the executor, which checks its policy first.
 *
 * <p>Implementations are thread-safe.
 */
public interface ResettableMarks {
  /**
   * The highest fence admitted for a key.
   *
   * @param key the lease key
   * @return the high-water mark, or empty if no token for the key was ever admitted
   * @throws IllegalArgumentException if {@code key} is null
   */
  OptionalLong highWaterMark(LeaseKey key);

  /**
   * Sets a key's mark and records the reset, as one step.
   *
   * @param key the key
   * @param newMark the new mark; 0 forgets the key's mark (the next token of any fence is admitted,
   *     unless the guard keeps a floor of its own)
   * @param operator who resets it
   * @param reason why
   * @return the recorded reset, with the mark it replaced
   * @throws AdminDeniedException if the guard's policy refuses the operator; nothing changed
   * @throws IllegalArgumentException if an argument is invalid; nothing changed
   */
  MarkReset resetMark(LeaseKey key, long newMark, String operator, String reason);

  /**
   * Every mark reset recorded, oldest first.
   *
   * @return the resets
   */
  List<MarkReset> markResets();
}
