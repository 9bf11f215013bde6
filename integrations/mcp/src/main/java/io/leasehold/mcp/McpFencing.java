package io.leasehold.mcp;

import java.util.LinkedHashMap;
import java.util.Map;

/** The names Leasehold uses in MCP messages (docs/mcp.md, docs/token-spec.md section 8). */
public final class McpFencing {
  private McpFencing() {}

  /** The {@code params._meta} key of a {@code tools/call} that carries the token's text form. */
  public static final String TOKEN_META_KEY = "io.leasehold/token";

  /**
   * The {@code params._meta} key of an optional idempotency key (a JSON string of 1 to 200
   * characters): a call retried with the same value by the same run runs once, and the retry gets
   * the first call's result. Replays are per run: a newer run's call with the same key runs.
   */
  public static final String IDEMPOTENCY_META_KEY = "io.leasehold/idempotency-key";

  /** The result {@code _meta} key of a refusal ({@link McpRefusal}). */
  public static final String REFUSAL_META_KEY = "io.leasehold/refusal";

  /** The {@code _meta} key of a fenced tool's {@code tools/list} entry ({@link #fenceMeta}). */
  public static final String FENCE_META_KEY = "io.leasehold/fence";

  /**
   * The note a fenced tool's description ends with, so that a person or a model reading {@code
   * tools/list} learns that calls need a token and where it goes (the same words in Node).
   *
   * @param tokenRequired false while the server's migration switch lets calls without a token run
   * @return the note
   */
  public static String toolNote(boolean tokenRequired) {
    return "Fenced by Leasehold: "
        + (tokenRequired ? "every call must carry" : "a call should carry")
        + " the calling run's lease token (its text form, lh2.…) as a JSON string in params._meta[\""
        + TOKEN_META_KEY
        + "\"]; "
        + (tokenRequired ? "a call without one, or" : "a call")
        + " with a stale or invalid token is refused and the tool does not run.";
  }

  /**
   * The {@value #FENCE_META_KEY} member of a fenced tool's {@code _meta}, for clients that read it.
   *
   * @param tokenRequired false while the server's migration switch lets calls without a token run
   * @return {@code {"tokenRequired", "tokenMetaKey", "idempotencyMetaKey", "refusalMetaKey"}}
   */
  public static Map<String, Object> fenceMeta(boolean tokenRequired) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("tokenRequired", tokenRequired);
    m.put("tokenMetaKey", TOKEN_META_KEY);
    m.put("idempotencyMetaKey", IDEMPOTENCY_META_KEY);
    m.put("refusalMetaKey", REFUSAL_META_KEY);
    return m;
  }
}
