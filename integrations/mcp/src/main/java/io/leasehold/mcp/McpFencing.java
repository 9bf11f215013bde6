package io.leasehold.mcp;

/**
 * The names Leasehold uses in MCP messages (docs/mcp.md, docs/token-spec.md section 8).
 */
public final class McpFencing {
  private McpFencing() {}

  /** The {@code params._meta} key of a {@code tools/call} that carries the token's text form. */
  public static final String TOKEN_META_KEY = "io.leasehold/token";

  /**
   * The {@code params._meta} key of an optional idempotency key: a call retried with the same
   * value by the same run runs once, and the retry gets the first call's result.
   */
  public static final String IDEMPOTENCY_META_KEY = "io.leasehold/idempotency-key";

  /** The result {@code _meta} key of a refusal ({@link McpRefusal}). */
  public static final String REFUSAL_META_KEY = "io.leasehold/refusal";
}
