package io.leasehold.mcp;

import io.leasehold.adapters.tool.DuplicateCallException;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.LeaseLostException;
import io.leasehold.fencing.StaleFenceException;
import io.leasehold.fencing.TokenSignature;
import io.leasehold.fencing.TokenVerificationException;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * A fenced MCP server's refusal of a {@code tools/call}, as it travels: a tool result marked
 * {@code isError}, whose text says why, and whose {@code _meta} holds this record under {@value
 * McpFencing#REFUSAL_META_KEY} for machines. The Java and the Node fence write the same object
 * (docs/mcp.md, "The refusal object", and its vectors in docs/mcp-refusal-vectors.json): fences
 * as decimal strings, instants in ISO-8601. The tool did not run.
 *
 * @param reason why the call was refused
 * @param key the lease key the token names, when it could be read
 * @param fence the fence the token presented, when it could be read
 * @param highestSeen the highest fence the server has admitted for the key, for {@link
 *     Reason#SUPERSEDED}
 * @param validFrom the start of the token's validity window, for {@link Reason#EXPIRED}
 * @param validUntil the end of the token's validity window, for {@link Reason#EXPIRED}
 * @param message what happened and how to repair it, for people
 */
public record McpRefusal(
    Reason reason,
    Optional<LeaseKey> key,
    OptionalLong fence,
    OptionalLong highestSeen,
    Optional<Instant> validFrom,
    Optional<Instant> validUntil,
    String message) {

  /** The one sentence the refusal's text ends with. */
  static final String NOT_RUN = "The tool was NOT run.";

  /** The most characters of an idempotency key. */
  public static final int MAX_IDEMPOTENCY_KEY_LENGTH = 200;

  static final String MISSING_MESSAGE = "the call carries no Leasehold token. This tool needs the calling run's"
      + " lease token, in its text form (lh2.…), as a JSON string in params._meta[\"" + McpFencing.TOKEN_META_KEY
      + "\"] of every tools/call; the lease store that granted the run's lease issues it (docs/token-spec.md)";
  static final String TOKEN_NOT_A_STRING_MESSAGE = "the token in params._meta[\"" + McpFencing.TOKEN_META_KEY
      + "\"] must be a JSON string holding the token's text form (lh2.…)";
  static final String BAD_IDEMPOTENCY_KEY_MESSAGE = "the idempotency key in params._meta[\""
      + McpFencing.IDEMPOTENCY_META_KEY + "\"] must be a JSON string of 1 to " + MAX_IDEMPOTENCY_KEY_LENGTH
      + " characters";
  static final String DUPLICATE_MESSAGE = "a call of this run with the same tool and idempotency key is still"
      + " running; retry once it finished to get its result";
  static final String UNAVAILABLE_MESSAGE = "the server could not check this call: its token verifier, mark store"
      + " or journal failed (the details are in the server's log); try again later";

  /** Instants on the wire: UTC, milliseconds, as JavaScript's {@code Date.toISOString} writes them. */
  private static final DateTimeFormatter ISO = DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSS'Z'", Locale.ROOT)
      .withZone(ZoneOffset.UTC);
  /** The last millisecond of year 9999: later instants have no four-digit ISO-8601 form. */
  private static final long MAX_INSTANT_MILLIS = 253_402_300_799_999L;

  /** Why a call was refused; the wire names are the lower-case constant names. */
  public enum Reason {
    /** A newer run of the session has been admitted: the caller's run must stop. */
    SUPERSEDED,
    /** The caller's lease is known lost. */
    LEASE_LOST,
    /** The call carried no token, and the server requires one. */
    MISSING,
    /** The token, or the idempotency key, in the call's {@code _meta} is malformed. */
    MALFORMED,
    /** The token is unsigned, signed by an unknown key, or its signature does not match. */
    FORGED,
    /** The token's validity window has passed (or not yet begun). */
    EXPIRED,
    /** The token is valid, but for another key than the one that owns what the call touches. */
    OUT_OF_SCOPE,
    /** The same run has a call with the same tool and idempotency key in flight. */
    DUPLICATE,
    /** The server could not check the call: its verifier, mark store or journal failed. */
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
    if (reason == null || key == null || fence == null || highestSeen == null || validFrom == null
        || validUntil == null || message == null) {
      throw new IllegalArgumentException("all components are required");
    }
  }

  /**
   * A refusal without a validity window.
   *
   * @param reason why the call was refused
   * @param key the token's key, when it could be read
   * @param fence the token's fence, when it could be read
   * @param highestSeen the key's mark, for {@link Reason#SUPERSEDED}
   * @param message what happened and how to repair it
   */
  public McpRefusal(Reason reason, Optional<LeaseKey> key, OptionalLong fence, OptionalLong highestSeen, String message) {
    this(reason, key, fence, highestSeen, Optional.empty(), Optional.empty(), message);
  }

  /**
   * The refusal for a reason, with the fence's own words for every reason that has them (the same
   * in Java and Node); {@code detail} is the message of the others (the verifier's or the
   * scope's words).
   */
  static McpRefusal of(Reason reason, FencingToken token, OptionalLong highestSeen, String detail) {
    Optional<LeaseKey> key = Optional.ofNullable(token).map(FencingToken::key);
    OptionalLong fence = token == null ? OptionalLong.empty() : OptionalLong.of(token.fence());
    Optional<TokenSignature> window = reason == Reason.EXPIRED && token != null ? token.signature() : Optional.empty();
    Optional<Instant> from = window.map(TokenSignature::validFrom).filter(McpRefusal::writable);
    Optional<Instant> until = window.map(TokenSignature::validUntil).filter(McpRefusal::writable);
    String message = switch (reason) {
      case SUPERSEDED -> "a newer run of this session has been admitted (fence "
          + (highestSeen.isPresent() ? Long.toString(highestSeen.getAsLong()) : "unknown")
          + "), so this run must stop";
      case MISSING -> MISSING_MESSAGE;
      case DUPLICATE -> DUPLICATE_MESSAGE;
      case UNAVAILABLE -> UNAVAILABLE_MESSAGE;
      case EXPIRED -> "the token is outside its validity window"
          + (from.isPresent() && until.isPresent() ? " (" + ISO.format(from.get()) + " to " + ISO.format(until.get()) + ")" : "")
          + " at the server's time: the run's lease ended or stopped renewing, so this run must stop";
      default -> detail == null || detail.isBlank() ? "refused" : detail;
    };
    return new McpRefusal(reason, key, fence, reason == Reason.SUPERSEDED ? highestSeen : OptionalLong.empty(),
        from, until, message);
  }

  /**
   * The refusal a throwable from the server's guard stands for. Anything that is not one of the
   * guard's refusals is a failure of the fence's own machinery: {@link Reason#UNAVAILABLE}, whose
   * message names no table and no SQL state (the caller logs the throwable).
   */
  static McpRefusal of(Throwable e, FencingToken token) {
    if (e instanceof StaleFenceException s) {
      return of(Reason.SUPERSEDED, token, OptionalLong.of(s.highestFence()), null);
    }
    if (e instanceof LeaseLostException) {
      return of(Reason.LEASE_LOST, token, OptionalLong.empty(), e.getMessage());
    }
    if (e instanceof DuplicateCallException) {
      return of(Reason.DUPLICATE, token, OptionalLong.empty(), null);
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
      return of(reason, token, OptionalLong.empty(), e.getMessage());
    }
    return of(Reason.UNAVAILABLE, token, OptionalLong.empty(), null);
  }

  private static boolean writable(Instant i) {
    long ms = i.toEpochMilli();
    return ms >= 0 && ms <= MAX_INSTANT_MILLIS;
  }

  /**
   * The refusal's {@code _meta} object, members in the documented order; absent members are left
   * out.
   *
   * @return the object, as the JSON mapper writes it
   */
  public Map<String, Object> toWire() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("reason", reason.wireName());
    key.ifPresent(k -> {
      m.put("accountId", k.accountId());
      m.put("sessionId", k.sessionId());
    });
    fence.ifPresent(f -> m.put("fence", Long.toString(f)));
    highestSeen.ifPresent(f -> m.put("highestSeen", Long.toString(f)));
    validFrom.filter(McpRefusal::writable).ifPresent(i -> m.put("validFrom", ISO.format(i)));
    validUntil.filter(McpRefusal::writable).ifPresent(i -> m.put("validUntil", ISO.format(i)));
    m.put("message", message);
    return m;
  }

  /**
   * The refusal's text content: {@code Refused by Leasehold (<reason>): <message>. The tool was
   * NOT run.}
   *
   * @return the text
   */
  public String text() {
    return "Refused by Leasehold (" + reason.wireName() + "): " + message + ". " + NOT_RUN;
  }

  /**
   * This refusal as the tool result a fenced server answers with.
   *
   * @return an {@code isError} result with the reason in its text and its {@code _meta}
   */
  public CallToolResult toResult() {
    return CallToolResult.builder()
        .addTextContent(text())
        .isError(true)
        .meta(Map.of(McpFencing.REFUSAL_META_KEY, toWire()))
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
    return Optional.of(new McpRefusal(reason.get(), key, fence(m.get("fence")), fence(m.get("highestSeen")),
        instant(m.get("validFrom")), instant(m.get("validUntil")),
        m.get("message") instanceof String msg ? msg : "refused by the server"));
  }

  /**
   * A fence as the refusal object carries it: a decimal string from 1 to 2^63-1, or, from older
   * servers, a JSON integer in that range. Anything else (0, a fraction such as 2.5, which an
   * outside check had read as fence 2, a sign, a space) is no fence: empty.
   */
  private static OptionalLong fence(Object o) {
    if (o instanceof String s && s.matches("[1-9][0-9]{0,18}")) {
      try {
        return OptionalLong.of(Long.parseLong(s));
      } catch (NumberFormatException e) {
        return OptionalLong.empty(); // above 2^63-1: no fence of ours
      }
    }
    boolean integral = o instanceof Long || o instanceof Integer || o instanceof Short || o instanceof Byte
        || (o instanceof java.math.BigInteger b && b.bitLength() < 64);
    return integral && ((Number) o).longValue() >= 1 ? OptionalLong.of(((Number) o).longValue()) : OptionalLong.empty();
  }

  private static Optional<Instant> instant(Object o) {
    if (!(o instanceof String s)) {
      return Optional.empty();
    }
    try {
      return Optional.of(Instant.parse(s));
    } catch (DateTimeParseException e) {
      return Optional.empty();
    }
  }
}
