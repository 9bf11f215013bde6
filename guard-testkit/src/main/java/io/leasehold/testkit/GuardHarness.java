package io.leasehold.testkit;

import io.leasehold.fencing.Fenced;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.MarkReset;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * A guard, seen by {@link FenceGuardContract} as a fenced register per lease key: each key's
 * register holds the value of its last admitted write. Implement it over your resource: a write
 * stores {@code value} through your guard, {@link #value} reads it back.
 */
public interface GuardHarness {
  /** Writes the key's register, presenting {@code fenced} (normally a token of that key). */
  void write(LeaseKey key, Fenced fenced, String value);

  /** The register's value. */
  Optional<String> value(LeaseKey key);

  /** The adapter's persisted high-water mark. */
  OptionalLong mark(LeaseKey key);

  /** A new adapter instance on the same storage, as after a restart. */
  GuardHarness reopen();

  /** The fences of admitted operations for the key, in admission order, from the adapter's log. */
  List<Long> admittedFences(LeaseKey key);

  /**
   * Whether the register's final value always comes from a write of the highest admitted fence.
   * False for the tool executor: a call admitted before a newer run may still finish after it
   * (CONTRACT C12).
   */
  boolean finalValueFollowsHighestFence();

  /** Resets the key's mark through the adapter's audited operation; "ops" is the administrator. */
  MarkReset resetMark(LeaseKey key, long newMark, String operator, String reason);

  /** The adapter's record of mark resets, oldest first. */
  List<MarkReset> markResets();
}
