package io.leasehold.fencing;

import io.leasehold.fencing.internal.Arguments;
import java.math.BigInteger;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.regex.Pattern;

/**
 * Why a guard, a tool fence or a fenced MCP server refused a run's write or call, in the one
 * vocabulary every part of Leasehold uses (docs/refusal-spec.md): the listener hears it ({@link
 * GuardListener#refused}), an agent's {@code RunStop} carries it, the MCP wire writes it as its
 * refusal object, and the Node package has the same type. Nothing changed, and the tool did not
 * run.
 *
 * @param reason why
 * @param key the lease key the presented token names, when it could be read
 * @param fence the fence the token presented, when it could be read
 * @param highestSeen the highest fence admitted for the key, for {@link Reason#SUPERSEDED}
 * @param validFrom the start of the token's validity window, for {@link Reason#EXPIRED}
 * @param validUntil the end of the token's validity window, for {@link Reason#EXPIRED}
 * @param message what happened and how to repair it, for people
 */
public record Refusal(
    Reason reason,
    Optional<LeaseKey> key,
    OptionalLong fence,
    OptionalLong highestSeen,
    Optional<Instant> validFrom,
    Optional<Instant> validUntil,
    String message) {

  /** What a refused run does next. */
  public enum Action {
    /** The run must stop: it is superseded, its lease is lost, or its token cannot be trusted. */
    STOP_RUN,
    /** The run may go on, but not with this call: it touches what another key owns. */
    SKIP_CALL,
    /** The run may go on and retry this call later: the refusal says nothing about the run. */
    RETRY_LATER
  }

  /**
   * Why a write or call was refused; the wire names ({@link #wireName()}) are the lower-case names.
   */
  public enum Reason {
    /** A newer run of the session has been admitted: this run's fence is below the key's mark. */
    SUPERSEDED(Action.STOP_RUN, GuardListener.Decision.STALE),
    /** The run's lease is known lost; another run may be in charge. */
    LEASE_LOST(Action.STOP_RUN, GuardListener.Decision.LEASE_LOST),
    /** No token was presented, and one is required. */
    MISSING(Action.STOP_RUN, GuardListener.Decision.UNVERIFIED),
    /** The token (or the call's idempotency key) is not well formed. */
    MALFORMED(Action.STOP_RUN, GuardListener.Decision.UNVERIFIED),
    /**
     * The token is unsigned where signatures are required, signed by an unknown key, tampered with,
     * or never issued.
     */
    FORGED(Action.STOP_RUN, GuardListener.Decision.UNVERIFIED),
    /**
     * The token's validity window has passed (or not yet begun): its lease ended or stopped
     * renewing.
     */
    EXPIRED(Action.STOP_RUN, GuardListener.Decision.UNVERIFIED),
    /** The token is valid, but for another key than the one that owns what the call touches. */
    OUT_OF_SCOPE(Action.SKIP_CALL, GuardListener.Decision.UNVERIFIED),
    /** The same run has a call with the same tool and idempotency key in flight. */
    DUPLICATE(Action.RETRY_LATER, GuardListener.Decision.DUPLICATE),
    /**
     * The guard could not check the write: its verifier, mark store or journal failed (fail
     * closed).
     */
    UNAVAILABLE(Action.RETRY_LATER, GuardListener.Decision.FAIL_CLOSED);

    private final Action action;
    private final GuardListener.Decision decision;

    Reason(Action action, GuardListener.Decision decision) {
      this.action = action;
      this.decision = decision;
    }

    /**
     * What the refused run does next.
     *
     * @return the action
     */
    public Action action() {
      return action;
    }

    /**
     * The decision a {@link GuardListener} hears for this refusal.
     *
     * @return the decision
     */
    public GuardListener.Decision decision() {
      return decision;
    }

    /**
     * The name on the wire and in the Node package: the constant's name in lower case.
     *
     * @return the name
     */
    public String wireName() {
      return name().toLowerCase(Locale.ROOT);
    }

    /**
     * The reason a wire name stands for.
     *
     * @param name a wire name, or anything else
     * @return the reason, or empty if {@code name} is not one
     */
    public static Optional<Reason> ofWireName(Object name) {
      for (Reason r : values()) {
        if (r.wireName().equals(name)) {
          return Optional.of(r);
        }
      }
      return Optional.empty();
    }

    /**
     * The refusal reason of a token the verifier refused.
     *
     * @param reason the verifier's reason
     * @return the refusal reason
     */
    public static Reason of(TokenVerificationException.Reason reason) {
      return switch (reason) {
        case MISSING -> MISSING;
        case MALFORMED -> MALFORMED;
        case EXPIRED, NOT_YET_VALID -> EXPIRED;
        case OUT_OF_SCOPE -> OUT_OF_SCOPE;
        case UNAVAILABLE -> UNAVAILABLE;
        case UNSIGNED, UNKNOWN_KEY, BAD_SIGNATURE, NOT_ISSUED -> FORGED;
      };
    }
  }

  /** The words of a duplicate refusal, the same in Java and Node. */
  public static final String DUPLICATE_MESSAGE =
      "a call of this run with the same tool and idempotency key is still"
          + " running; retry once it finished to get its result";

  /**
   * The words of an unavailable refusal, which never name a table or a SQL state (the detail goes
   * to the log).
   */
  public static final String UNAVAILABLE_MESSAGE =
      "the server could not check this call: its token verifier, mark"
          + " store or journal failed (the details are in the server's log); try again later";

  /**
   * Instants in messages and on the wire: UTC, milliseconds, as JavaScript's {@code
   * Date.toISOString} writes them.
   */
  private static final DateTimeFormatter ISO =
      DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSS'Z'", Locale.ROOT)
          .withZone(ZoneOffset.UTC);

  /** The last millisecond of year 9999: later instants have no four-digit ISO-8601 form. */
  private static final long MAX_INSTANT_MILLIS = 253_402_300_799_999L;

  /**
   * A detail that says nothing: only these characters, the set docs/refusal-spec.md ("Blank
   * details") names and the Node package spells alike. Not {@link String#isBlank}: JavaScript's
   * trim has another set (it takes the no-break spaces and U+FEFF, not U+001C-U+001F), and the two
   * languages wrote different words for the same detail.
   */
  private static final Pattern BLANK =
      Pattern.compile(
          "[\\t\\n\\x0B\\f\\r\\x1C-\\x1F \\x85\\xA0\\u1680\\u2000-\\u200A\\u2028\\u2029\\u202F\\u205F\\u3000\\uFEFF]*");

  /**
   * Checks the components.
   *
   * @throws IllegalArgumentException if a component is null
   */
  public Refusal {
    Arguments.allRequired(reason, key, fence, highestSeen, validFrom, validUntil, message);
  }

  /**
   * What the refused run does next: {@code reason().action()}.
   *
   * @return the action
   */
  public Action action() {
    return reason.action();
  }

  /**
   * The refusal for a reason, in the vocabulary's own words for the reasons that have them
   * (superseded, expired, duplicate, unavailable; docs/refusal-spec.md); {@code detail} is the
   * message of the others (the verifier's or the scope's words, which name the keys involved), or
   * {@code refused} when it is null or blank (only the characters docs/refusal-spec.md, "Blank
   * details", names), each lone surrogate in it written as U+FFFD. Only a superseded refusal keeps
   * {@code highestSeen}, and only an expired one the token's validity window.
   *
   * @param reason why
   * @param token the presented token, or null if it could not be read
   * @param highestSeen the key's mark, for {@link Reason#SUPERSEDED}
   * @param detail the message of reasons without words of their own, or null
   * @return the refusal
   * @throws IllegalArgumentException if the reason or {@code highestSeen} is null
   */
  public static Refusal of(
      Reason reason, FencingToken token, OptionalLong highestSeen, String detail) {
    if (reason == null || highestSeen == null) {
      throw new IllegalArgumentException("reason and highestSeen must not be null");
    }
    Optional<TokenSignature> window =
        reason == Reason.EXPIRED && token != null ? token.signature() : Optional.empty();
    Optional<Instant> from = window.map(TokenSignature::validFrom).filter(Refusal::writable);
    Optional<Instant> until = window.map(TokenSignature::validUntil).filter(Refusal::writable);
    String message =
        switch (reason) {
          case SUPERSEDED ->
              "a newer run of this session has been admitted (fence "
                  + (highestSeen.isPresent() ? Long.toString(highestSeen.getAsLong()) : "unknown")
                  + "), so this run must stop";
          case DUPLICATE -> DUPLICATE_MESSAGE;
          case UNAVAILABLE -> UNAVAILABLE_MESSAGE;
          case EXPIRED ->
              "the token is outside its validity window"
                  + (from.isPresent() && until.isPresent()
                      ? " (" + iso(from.get()) + " to " + iso(until.get()) + ")"
                      : "")
                  + " at the server's time: the run's lease ended or stopped renewing, so this run must stop";
          default ->
              detail == null || BLANK.matcher(detail).matches() ? "refused" : wellFormed(detail);
        };
    return new Refusal(
        reason,
        Optional.ofNullable(token).map(FencingToken::key),
        token == null ? OptionalLong.empty() : OptionalLong.of(token.fence()),
        reason == Reason.SUPERSEDED ? highestSeen : OptionalLong.empty(),
        from,
        until,
        message);
  }

  /**
   * The refusal a guard's exception stands for, with the token it names ({@link
   * StaleFenceException#presented()}, {@link LeaseLostException#token()}); see {@link
   * #of(Throwable, FencingToken)}.
   *
   * @param e what the guard threw
   * @return the refusal
   * @throws IllegalArgumentException if {@code e} is null
   */
  public static Refusal of(Throwable e) {
    FencingToken named =
        e instanceof StaleFenceException s
            ? s.presented()
            : e instanceof LeaseLostException l ? l.token() : null;
    return of(e, named);
  }

  /**
   * The refusal a guard's exception stands for: {@link StaleFenceException} is {@link
   * Reason#SUPERSEDED}, {@link LeaseLostException} {@link Reason#LEASE_LOST}, a {@link
   * TokenVerificationException} the reason {@link Reason#of(TokenVerificationException.Reason)}
   * gives, a {@link GuardListener.Classified} duplicate {@link Reason#DUPLICATE}; anything else is
   * a failure of the guard's own machinery: {@link Reason#UNAVAILABLE}, whose message names no
   * table and no SQL state (log the throwable). Call it only for a throwable that refused the
   * write: a tool that threw after it was admitted ({@link GuardOptions#decisionOf} gives {@link
   * GuardListener.Decision#ADMITTED}) was not refused.
   *
   * @param e what the guard threw
   * @param token the token presented, or null if it could not be read
   * @return the refusal
   * @throws IllegalArgumentException if {@code e} is null
   */
  public static Refusal of(Throwable e, FencingToken token) {
    if (e == null) {
      throw new IllegalArgumentException("the throwable must not be null");
    }
    if (e instanceof StaleFenceException s) {
      return of(Reason.SUPERSEDED, token, OptionalLong.of(s.highestFence()), null);
    }
    if (e instanceof LeaseLostException) {
      return of(Reason.LEASE_LOST, token, OptionalLong.empty(), e.getMessage());
    }
    if (e instanceof TokenVerificationException v) {
      return of(Reason.of(v.reason()), token, OptionalLong.empty(), e.getMessage());
    }
    if (e instanceof GuardListener.Classified c
        && c.decision() == GuardListener.Decision.DUPLICATE) {
      return of(Reason.DUPLICATE, token, OptionalLong.empty(), null);
    }
    return of(Reason.UNAVAILABLE, token, OptionalLong.empty(), null);
  }

  /**
   * The refusal's written form, which the MCP wire carries as its refusal object (docs/mcp.md) and
   * the Node package writes alike: {@code reason} (the wire name), {@code accountId} and {@code
   * sessionId}, {@code fence} and {@code highestSeen} as decimal strings (fences reach 2^63-1, past
   * JavaScript's 2^53), {@code validFrom} and {@code validUntil} in ISO-8601, and {@code message},
   * in this order; absent members are left out. The action is not written: it follows from the
   * reason.
   *
   * @return a new mutable map, as a JSON mapper writes it
   */
  public Map<String, Object> written() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("reason", reason.wireName());
    key.ifPresent(
        k -> {
          m.put("accountId", k.accountId());
          m.put("sessionId", k.sessionId());
        });
    fence.ifPresent(f -> m.put("fence", Long.toString(f)));
    highestSeen.ifPresent(f -> m.put("highestSeen", Long.toString(f)));
    validFrom.filter(Refusal::writable).ifPresent(i -> m.put("validFrom", iso(i)));
    validUntil.filter(Refusal::writable).ifPresent(i -> m.put("validUntil", iso(i)));
    m.put("message", message);
    return m;
  }

  /**
   * Reads a refusal's written form ({@link #written()}), as a JSON mapper reads it into a map, from
   * any writer. It is no refusal only without a known reason; other members that are missing or odd
   * are left out (a fence that is not 1 to 2^63-1, as a decimal string or, from older writers, a
   * JSON integer; a key that is not a valid key; an instant that does not parse).
   *
   * @param written the object's members
   * @return the refusal, or empty if it names no known reason
   */
  public static Optional<Refusal> fromWritten(Map<?, ?> written) {
    if (written == null) {
      return Optional.empty();
    }
    Optional<Reason> reason = Reason.ofWireName(written.get("reason"));
    if (reason.isEmpty()) {
      return Optional.empty();
    }
    Optional<LeaseKey> key = Optional.empty();
    if (written.get("accountId") instanceof String a
        && written.get("sessionId") instanceof String s) {
      try {
        key = Optional.of(LeaseKey.of(a, s));
      } catch (IllegalArgumentException e) {
        key = Optional.empty(); // not a key of ours: the refusal names none, as the javadoc says
      }
    }
    return Optional.of(
        new Refusal(
            reason.get(),
            key,
            writtenFence(written.get("fence")),
            writtenFence(written.get("highestSeen")),
            writtenInstant(written.get("validFrom")),
            writtenInstant(written.get("validUntil")),
            written.get("message") instanceof String msg ? msg : "refused by the server"));
  }

  /**
   * A fence as the written form carries it: a decimal string from 1 to 2^63-1, or, from older
   * writers, a JSON integer in that range. Anything else (0, a fraction such as 2.5, which an
   * outside check had read as fence 2, a sign, a space) is no fence: empty.
   */
  private static OptionalLong writtenFence(Object o) {
    if (o instanceof String s && s.matches("[1-9][0-9]{0,18}")) {
      // Nineteen digits may still exceed 2^63-1: compare as text of equal length.
      return s.length() < 19 || s.compareTo(Long.toString(Long.MAX_VALUE)) <= 0
          ? OptionalLong.of(Long.parseLong(s))
          : OptionalLong.empty();
    }
    boolean integral =
        o instanceof Long
            || o instanceof Integer
            || o instanceof Short
            || o instanceof Byte
            || (o instanceof BigInteger b && b.bitLength() < 64);
    return integral && ((Number) o).longValue() >= 1
        ? OptionalLong.of(((Number) o).longValue())
        : OptionalLong.empty();
  }

  private static Optional<Instant> writtenInstant(Object o) {
    if (!(o instanceof String s)) {
      return Optional.empty();
    }
    try {
      return Optional.of(Instant.parse(s));
    } catch (DateTimeParseException e) {
      return Optional.empty(); // an instant that does not parse is left out, as the javadoc says
    }
  }

  /**
   * The detail with every lone surrogate replaced by U+FFFD, as JavaScript's {@code toWellFormed}
   * does: the written form is JSON text, which a lone surrogate would make invalid UTF-8.
   */
  private static String wellFormed(String detail) {
    StringBuilder b = new StringBuilder(detail.length());
    for (int i = 0; i < detail.length(); i++) {
      char c = detail.charAt(i);
      if (Character.isHighSurrogate(c)
          && i + 1 < detail.length()
          && Character.isLowSurrogate(detail.charAt(i + 1))) {
        b.append(c).append(detail.charAt(++i));
      } else {
        b.append(Character.isSurrogate(c) ? '\ufffd' : c);
      }
    }
    return b.toString();
  }

  /**
   * An instant as the vocabulary writes it: ISO-8601 in UTC with milliseconds.
   *
   * @param instant the instant, between 1970 and the end of year 9999
   * @return the text
   */
  public static String iso(Instant instant) {
    return ISO.format(instant);
  }

  /**
   * Whether an instant has the written form {@link #iso} gives: from 1970 to the end of year 9999.
   *
   * @param instant the instant
   * @return true if it can be written
   */
  public static boolean writable(Instant instant) {
    long ms = instant.toEpochMilli();
    return ms >= 0 && ms <= MAX_INSTANT_MILLIS;
  }
}
