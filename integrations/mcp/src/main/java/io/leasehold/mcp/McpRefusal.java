package io.leasehold.mcp;

import io.leasehold.adapters.tool.DuplicateCallException;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.LeaseLostException;
import io.leasehold.fencing.StaleFenceException;
import io.leasehold.fencing.TokenVerificationException;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * A fenced MCP server's refusal of a {@code tools/call}, as it travels: a tool result marked
 * {@code isError}, whose text says why, and whose {@code _meta} holds this record under {@value
 * McpFencing#REFUSAL_META_KEY} for machines (docs/mcp.md gives the wire format). The tool did not
 * run.
 *
 * @param reason why the call was refused
 * @param key the lease key the token names, when it could be read
 * @param fence the fence the token presented, when it could be read
 * @param highestSeen the highest fence the server has admitted for the key, for {@link
 *     Reason#SUPERSEDED}
 * @param message what happened and how to repair it, for people
 */
public record McpRefusal(
    Reason reason, Optional<LeaseKey> key, OptionalLong fence, OptionalLong highestSeen, String message) {

  /** Why a call was refused; the wire names are the lower-case constant names. */
  public enum Reason {
    /** A newer run of the session has been admitted: the caller's run must stop. */
    SUPERSEDED,
    /** The caller's lease is known lost. */
    LEASE_LOST,
    /** The call carried no token, and the server requires one. */
    MISSING,
    /** The token's text is not a token. */
    MALFORMED,
    /** The token is unsigned, signed by an unknown key, or its signature does not match. */
    FORGED,
    /** The token's validity window has passed (or not yet begun). */
    EXPIRED,
    /** The token is valid, but for another key than the one that owns what the call touches. */
    OUT_OF_SCOPE,
    /** The same run has a call with the same idempotency key in flight. */
    DUPLICATE,
    /** The server could not check the token or its mark (its lease database or journal). */
    UNAVAILABLE;

    /** The name on the wire. */
    String wireName() {
      return name().toLowerCase(Locale.ROOT);
    }

    static Optional<Reason> ofWireName(Object name) {
      for (Reason r : values()) {
        if (r.wireName().equals(name)) {
          return Optional.of(r);
        }
      }
      return Optional.empty();
    }
  }

  /**
   * Checks the components.
   *
   * @throws IllegalArgumentException if a component is null
   */
  public McpRefusal {
    if (reason == null || key == null || fence == null || highestSeen == null || message == null) {
      throw new IllegalArgumentException("all components are required");
    }
  }

  /** The refusal an exception from the server's guard stands for, if it is one. */
  static Optional<McpRefusal> of(RuntimeException e, FencingToken token) {
    Optional<LeaseKey> key = Optional.ofNullable(token).map(FencingToken::key);
    OptionalLong fence = token == null ? OptionalLong.empty() : OptionalLong.of(token.fence());
    if (e instanceof StaleFenceException s) {
      return Optional.of(new McpRefusal(Reason.SUPERSEDED, Optional.of(s.key()),
          OptionalLong.of(s.presentedFence()), OptionalLong.of(s.highestFence()), e.getMessage()));
    }
    if (e instanceof LeaseLostException) {
      return Optional.of(new McpRefusal(Reason.LEASE_LOST, key, fence, OptionalLong.empty(), e.getMessage()));
    }
    if (e instanceof DuplicateCallException) {
      return Optional.of(new McpRefusal(Reason.DUPLICATE, key, fence, OptionalLong.empty(), e.getMessage()));
    }
    if (e instanceof TokenVerificationException v) {
      Reason reason = switch (v.reason()) {
        case MISSING -> Reason.MISSING;
        case MALFORMED -> Reason.MALFORMED;
        case EXPIRED, NOT_YET_VALID -> Reason.EXPIRED;
        case OUT_OF_SCOPE -> Reason.OUT_OF_SCOPE;
        case UNAVAILABLE -> Reason.UNAVAILABLE;
        case UNSIGNED, UNKNOWN_KEY, BAD_SIGNATURE, NOT_ISSUED -> Reason.FORGED;
      };
      return Optional.of(new McpRefusal(reason, key, fence, OptionalLong.empty(), e.getMessage()));
    }
    return Optional.empty();
  }

  /**
   * This refusal as the tool result a fenced server answers with.
   *
   * @return an {@code isError} result with the reason in its text and its {@code _meta}
   */
  public CallToolResult toResult() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("reason", reason.wireName());
    key.ifPresent(k -> {
      m.put("accountId", k.accountId());
      m.put("sessionId", k.sessionId());
    });
    fence.ifPresent(f -> m.put("fence", f));
    highestSeen.ifPresent(f -> m.put("highestSeen", f));
    m.put("message", message);
    return CallToolResult.builder()
        .addTextContent("Refused by Leasehold (" + reason.wireName() + "): " + message + ". The tool was NOT run.")
        .isError(true)
        .meta(Map.of(McpFencing.REFUSAL_META_KEY, m))
        .build();
  }

  /**
   * The refusal a tool result carries, if it is one (a fenced server's answer, from any SDK).
   * Malformed refusal metadata reads as no refusal only when there is no reason; a known reason
   * with odd other members is still a refusal.
   *
   * @param result a tool result
   * @return the refusal, or empty for an ordinary result
   */
  public static Optional<McpRefusal> from(CallToolResult result) {
    if (result == null || !Boolean.TRUE.equals(result.isError()) || result.meta() == null
        || !(result.meta().get(McpFencing.REFUSAL_META_KEY) instanceof Map<?, ?> m)) {
      return Optional.empty();
    }
    Optional<Reason> reason = Reason.ofWireName(m.get("reason"));
    if (reason.isEmpty()) {
      return Optional.empty();
    }
    Optional<LeaseKey> key = Optional.empty();
    if (m.get("accountId") instanceof String a && m.get("sessionId") instanceof String s) {
      try {
        key = Optional.of(LeaseKey.of(a, s));
      } catch (IllegalArgumentException e) {
        key = Optional.empty();
      }
    }
    return Optional.of(new McpRefusal(reason.get(), key, number(m.get("fence")), number(m.get("highestSeen")),
        m.get("message") instanceof String msg ? msg : "refused by the server"));
  }

  private static OptionalLong number(Object o) {
    return o instanceof Number n && n.longValue() >= 0 ? OptionalLong.of(n.longValue()) : OptionalLong.empty();
  }
}
