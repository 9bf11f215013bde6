package io.leasehold.fencing;

import io.leasehold.fencing.internal.Arguments;
import java.util.Set;

/**
 * Who may run a guard's administrative operations (CONTRACT C17), today the {@linkplain MarkReset
 * reset of a high-water mark}. The guard asks it before it changes anything; a refused operator
 * changes nothing and gets {@link AdminDeniedException}. Leasehold does not authenticate operators:
 * the application (or the shell command, from the operating system's user) names them.
 *
 * <p>Implementations must be thread-safe.
 */
@FunctionalInterface
public interface AdminPolicy {
  /**
   * Whether {@code operator} may reset the mark of {@code key}.
   *
   * @param operator the authenticated operator
   * @param key the key whose mark would change
   * @return true to let the reset proceed
   */
  boolean mayResetMark(String operator, LeaseKey key);

  /**
   * Nobody: the default of every guard.
   *
   * @return the policy
   */
  static AdminPolicy nobody() {
    return (operator, key) -> false;
  }

  /**
   * The named operators, for every key.
   *
   * @param operators the operators' names
   * @return the policy
   */
  static AdminPolicy operators(Set<String> operators) {
    Set<String> copy = Arguments.names(operators, "operators");
    return (operator, key) -> copy.contains(operator);
  }
}
