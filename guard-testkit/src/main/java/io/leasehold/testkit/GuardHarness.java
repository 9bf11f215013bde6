package io.leasehold.testkit;

import io.leasehold.fencing.FenceGuard;
import io.leasehold.fencing.Fenced;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.MarkReset;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * A guard, seen by {@link FenceGuardContract} as a fenced register per lease key: each key's
 * register holds the value of its last admitted write. Implement it over your resource: {@link
 * #guard()} is your {@link FenceGuard}, a write stores {@code value} through it, {@link #value}
 * reads it back. Marks, admissions without a write and mark resets are checked through the guard
 * interface itself, so a guard gets them checked by implementing {@link FenceGuard}.
 */
public interface GuardHarness {
  /**
   * The guard under test, as the interface every guard implements.
   *
   * @return the guard
   */
  FenceGuard guard();

  /**
   * Writes the key's register, presenting {@code fenced} (normally a token of that key).
   *
   * @param key the register
   * @param fenced the writer's token or lease
   * @param value the new value
   */
  void write(LeaseKey key, Fenced fenced, String value);

  /**
   * The register's value.
   *
   * @param key the register
   * @return its value, or empty if never written
   */
  Optional<String> value(LeaseKey key);

  /**
   * The adapter's persisted high-water mark; by default the guard's.
   *
   * @param key the key
   * @return the mark
   */
  default OptionalLong mark(LeaseKey key) {
    return guard().highWaterMark(key);
  }

  /**
   * A new adapter instance on the same storage, as after a restart.
   *
   * @return the new harness
   */
  GuardHarness reopen();

  /**
   * The fences of admitted operations for the key, in admission order, from the adapter's log.
   *
   * @param key the key
   * @return the fences
   */
  List<Long> admittedFences(LeaseKey key);

  /**
   * Whether the register's final value always comes from a write of the highest admitted fence:
   * true by default, the stricter check. Override it to return false for a guard that admits a call
   * before it runs, such as the tool executor: a call admitted before a newer run may still finish
   * after it (CONTRACT C12).
   *
   * @return true if it does
   */
  default boolean finalValueFollowsHighestFence() {
    return true;
  }

  /**
   * Resets the key's mark through the adapter's audited operation; by default the guard's. {@code
   * "ops"} must be an administrator.
   *
   * @param key the key
   * @param newMark the new mark
   * @param operator who
   * @param reason why
   * @return the recorded reset
   */
  default MarkReset resetMark(LeaseKey key, long newMark, String operator, String reason) {
    return guard().resetMark(key, newMark, operator, reason);
  }

  /**
   * The adapter's record of mark resets, oldest first; by default the guard's.
   *
   * @return the resets
   */
  default List<MarkReset> markResets() {
    return guard().markResets();
  }
}
