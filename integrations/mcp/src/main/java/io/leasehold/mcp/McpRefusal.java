package io.leasehold.mcp;

import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.Refusal;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * A {@link Refusal} as it travels over MCP: a tool result marked {@code isError}, whose text says
 * why, and whose {@code _meta} holds the refusal object under {@value McpFencing#REFUSAL_META_KEY}
 * for machines. The Java and the Node fence write the same object (docs/mcp.md, "The refusal
 * object", and its vectors in docs/mcp-refusal-vectors.json; the vocabulary itself is
 * docs/refusal-spec.md): fences as decimal strings, instants in ISO-8601. The tool did not run.
 */
public final class McpRefusal {
  private McpRefusal() {}

  /** The one sentence the refusal's text ends with. */
  static final String NOT_RUN = "The tool was NOT run.";

  /** The most characters of an idempotency key. */
  public static final int MAX_IDEMPOTENCY_KEY_LENGTH = 200;

  static final String MISSING_MESSAGE =
      "the call carries no Leasehold token. This tool needs the calling run's"
          + " lease token, in its text form (lh2.…), as a JSON string in params._meta[\""
          + McpFencing.TOKEN_META_KEY
          + "\"] of every tools/call; the lease store that granted the run's lease issues it (docs/token-spec.md)";
  static final String TOKEN_NOT_A_STRING_MESSAGE =
      "the token in params._meta[\""
          + McpFencing.TOKEN_META_KEY
          + "\"] must be a JSON string holding the token's text form (lh2.…)";
  static final String BAD_IDEMPOTENCY_KEY_MESSAGE =
      "the idempotency key in params._meta[\""
          + McpFencing.IDEMPOTENCY_META_KEY
          + "\"] must be a JSON string of 1 to "
          + MAX_IDEMPOTENCY_KEY_LENGTH
          + " characters";

  /**
   * The refusal of a call, in MCP's words where the wire has its own: {@link
   * Refusal.Reason#MISSING} says where the token goes in {@code _meta}; the other reasons are
   * {@link Refusal#of(Refusal.Reason, FencingToken, OptionalLong, String)}.
   */
  static Refusal of(
      Refusal.Reason reason, FencingToken token, OptionalLong highestSeen, String detail) {
    return Refusal.of(
        reason, token, highestSeen, reason == Refusal.Reason.MISSING ? MISSING_MESSAGE : detail);
  }

  /**
   * The refusal's text content: {@code Refused by Leasehold (<reason>): <message>. The tool was NOT
   * run.}
   *
   * @param refusal the refusal
   * @return the text
   */
  public static String text(Refusal refusal) {
    return "Refused by Leasehold ("
        + refusal.reason().wireName()
        + "): "
        + refusal.message()
        + ". "
        + NOT_RUN;
  }

  /**
   * The tool result a fenced server answers a refused call with.
   *
   * @param refusal the refusal
   * @return an {@code isError} result with the reason in its text and its {@code _meta}
   */
  public static CallToolResult toResult(Refusal refusal) {
    return CallToolResult.builder()
        .addTextContent(text(refusal))
        .isError(true)
        .meta(Map.of(McpFencing.REFUSAL_META_KEY, refusal.written()))
        .build();
  }

  /**
   * The refusal a tool result carries, if it is one (a fenced server's answer, from any SDK).
   * Malformed refusal metadata reads as no refusal only when there is no reason; a known reason
   * with odd other members is still a refusal. Fences are read as decimal strings, or as JSON
   * numbers from servers older than this format.
   *
   * @param result a tool result
   * @return the refusal, or empty for an ordinary result
   */
  public static Optional<Refusal> from(CallToolResult result) {
    if (result == null
        || !Boolean.TRUE.equals(result.isError())
        || result.meta() == null
        || !(result.meta().get(McpFencing.REFUSAL_META_KEY) instanceof Map<?, ?> m)) {
      return Optional.empty();
    }
    return Refusal.fromWritten(m);
  }
}
