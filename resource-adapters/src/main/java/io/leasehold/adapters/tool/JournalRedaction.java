package io.leasehold.adapters.tool;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * What a {@link FencedToolExecutor} writes to its journal in place of a call's arguments, result
 * and error: the journal outlives the call, and tool arguments and results may hold personal data
 * or secrets. The tool itself always gets the real arguments, and the caller the real result.
 *
 * <p>A replayed idempotent call is answered with the journaled (redacted) result: keep in a
 * redacted result what a retry needs, or leave idempotent tools' results as they are.
 * Implementations must be thread-safe and must not throw (a throwing redaction fails the call
 * before the tool runs, or after it ran, with the journal recording the failure).
 */
public interface JournalRedaction {
  /**
   * The arguments to journal.
   *
   * @param tool the tool's name
   * @param arguments the real arguments
   * @return what to journal, never null (a {@code NullNode} for nothing)
   */
  default JsonNode arguments(String tool, JsonNode arguments) {
    return arguments;
  }

  /**
   * The result to journal.
   *
   * @param tool the tool's name
   * @param result the real result
   * @return what to journal, never null
   */
  default JsonNode result(String tool, JsonNode result) {
    return result;
  }

  /**
   * The error text to journal for a call whose tool threw.
   *
   * @param tool the tool's name
   * @param error what the tool threw
   * @return the text to journal
   */
  default String error(String tool, Throwable error) {
    return error.toString();
  }

  /**
   * No redaction: everything is journaled as it is (the default).
   *
   * @return the redaction
   */
  static JournalRedaction none() {
    return new JournalRedaction() {};
  }
}
