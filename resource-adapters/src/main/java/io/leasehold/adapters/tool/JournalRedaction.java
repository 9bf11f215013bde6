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
   * No redaction: everything is journaled as it is. The opt-out, for journals whose readers may see
   * every argument and error text.
   *
   * @return the redaction
   */
  static JournalRedaction none() {
    return new JournalRedaction() {};
  }

  /**
   * The default of every executor (issue 27): arguments keep their shape (objects, arrays and
   * member names) with every value replaced by {@value SecretsRedacted#REDACTED}, so an in-doubt
   * call still says which fields it had; an error is journaled as its exception's class name, not
   * its message. Results are journaled as they are, because a replayed idempotent call is answered
   * from them; redact them yourself if they hold secrets.
   *
   * @return the redaction
   */
  static JournalRedaction secretsRedacted() {
    return SecretsRedacted.INSTANCE;
  }
}

/** {@link JournalRedaction#secretsRedacted()}. */
enum SecretsRedacted implements JournalRedaction {
  INSTANCE;

  /** What every argument value becomes. */
  static final String REDACTED = "<redacted>";

  @Override
  public JsonNode arguments(String tool, JsonNode arguments) {
    return redact(arguments);
  }

  @Override
  public String error(String tool, Throwable error) {
    return error.getClass().getName() + " (message redacted)";
  }

  private static JsonNode redact(JsonNode node) {
    if (node == null || node.isNull() || node.isMissingNode()) {
      return com.fasterxml.jackson.databind.node.NullNode.getInstance();
    }
    com.fasterxml.jackson.databind.node.JsonNodeFactory f =
        com.fasterxml.jackson.databind.node.JsonNodeFactory.instance;
    if (node.isObject()) {
      com.fasterxml.jackson.databind.node.ObjectNode out = f.objectNode();
      node.properties().forEach(e -> out.set(e.getKey(), redact(e.getValue())));
      return out;
    }
    if (node.isArray()) {
      com.fasterxml.jackson.databind.node.ArrayNode out = f.arrayNode();
      node.forEach(e -> out.add(redact(e)));
      return out;
    }
    return f.textNode(REDACTED);
  }

  @Override
  public String toString() {
    return "JournalRedaction.secretsRedacted()";
  }
}
