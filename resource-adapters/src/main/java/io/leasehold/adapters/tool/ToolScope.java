package io.leasehold.adapters.tool;

import com.fasterxml.jackson.databind.JsonNode;
import io.leasehold.fencing.LeaseKey;

/**
 * Which lease key may make which tool calls through a {@link FencedToolExecutor} (CONTRACT C19). A
 * valid token proves which run of which session calls, not what the call may touch: the executor's
 * owner says that, and a call outside its key's share is refused with {@link
 * io.leasehold.fencing.TokenVerificationException.Reason#OUT_OF_SCOPE} before anything is journaled
 * or the tool runs.
 *
 * <p>Whatever the scope, the journal's records, marks and idempotent replays are per key: one key's
 * calls never answer, refuse or reorder another's. The default, {@link #anyCall()}, adds no check
 * of its own, because the executor cannot know what a tool's arguments name; a tool that takes a
 * path or a resource id should be given a scope such as {@link #argumentUnderKey}.
 *
 * <p>Implementations must be thread-safe, quick and free of side effects.
 */
@FunctionalInterface
public interface ToolScope {
  /**
   * Whether a token of {@code key} may make this call.
   *
   * @param key the token's key, verified
   * @param tool the tool's name
   * @param arguments the call's arguments, never null
   * @return true to go on to the journal
   */
  boolean permits(LeaseKey key, String tool, JsonNode arguments);

  /**
   * Whom a refused call belongs to, in words for the refusal message (CONTRACT C19: it names both
   * keys).
   *
   * @param tool the tool's name
   * @param arguments the call's arguments
   * @return a description, such as {@code "session victim/chat"}
   */
  default String ownerOf(String tool, JsonNode arguments) {
    return "another key, by this executor's tool scope";
  }

  /**
   * The default: every call is the key's own, its records and replays kept per key.
   *
   * @return the scope
   */
  static ToolScope anyCall() {
    return (key, tool, arguments) -> true;
  }

  /**
   * Calls whose string argument {@code name} (when the arguments hold it) must start with {@code
   * <account id>/<session id>/}: the layout of {@code PathScope.sessionDirectories()}, for tools
   * that take a path. A call with the argument missing, or not a string, is refused too.
   *
   * @param name the argument's name, such as {@code "path"}
   * @return the scope
   */
  static ToolScope argumentUnderKey(String name) {
    if (name == null || name.isBlank()) {
      throw new IllegalArgumentException("argument name must not be blank");
    }
    return new ToolScope() {
      @Override
      public boolean permits(LeaseKey key, String tool, JsonNode arguments) {
        JsonNode value = arguments.get(name);
        if (value == null || !value.isTextual()) {
          return false;
        }
        String path = value.textValue();
        String prefix = key.accountId() + '/' + key.sessionId() + '/';
        return path.startsWith(prefix)
            && !key.accountId().contains("/")
            && !key.sessionId().contains("/")
            && !("/" + path + "/").contains("/../")
            && !("/" + path + "/").contains("/./");
      }

      @Override
      public String ownerOf(String tool, JsonNode arguments) {
        JsonNode value = arguments.get(name);
        if (value == null || !value.isTextual()) {
          return "no session (argument '"
              + name
              + "' must be a string starting with <account id>/<session id>/)";
        }
        String path = value.textValue();
        if (("/" + path + "/").contains("/../") || ("/" + path + "/").contains("/./")) {
          // Not the session its first two segments name: '..' may lead anywhere (issue 46).
          return "no session (argument '"
              + name
              + "' holds a '.' or '..' segment, which may lead out of"
              + " <account id>/<session id>/)";
        }
        String[] parts = path.split("/", 3);
        return parts.length < 3
            ? "no session (argument '" + name + "' must start with <account id>/<session id>/)"
            : "session " + parts[0] + "/" + parts[1];
      }

      @Override
      public String toString() {
        return "ToolScope.argumentUnderKey(" + name + ")";
      }
    };
  }
}
