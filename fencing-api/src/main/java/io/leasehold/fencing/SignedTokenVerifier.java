package io.leasehold.fencing;

import io.leasehold.fencing.internal.Arguments;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * The offline verifier: admits a token only if a key of the set signed it and the resource's clock
 * is inside the token's validity window, give or take a clock-skew allowance (CONTRACT C15, C20).
 * Built by {@link TokenVerifier#signedBy(TokenKeySet)}; immutable, and thread-safe.
 *
 * <p>The checks run cheapest first, so a flood of forged tokens costs map lookups, not cryptography
 * (C21): the token must be signed, by a key id the set knows, with a signature of that scheme's
 * length, and the window must hold; only then is the signature checked. A token that passed is
 * remembered (a run presents the same token for every write until its next renewal, and an Ed25519
 * check costs far more than a lookup), but its window is checked on every call. A remembered token
 * is the whole record, so a changed fence, run, window or signature is checked again. The memory is
 * dropped whenever the key set changes (a retired key's tokens are checked, and refused, again) and
 * when it reaches {@value #MAX_REMEMBERED} tokens.
 *
 * <p>The skew allowance, {@value #DEFAULT_SKEW_SECONDS} seconds unless set, covers the difference
 * between the lease database's clock, which set the window, and this resource's clock. A copied
 * token stays usable for its remaining window plus the allowance; keep it small.
 */
public final class SignedTokenVerifier implements TokenVerifier {
  /** Most tokens remembered as verified before the memory is dropped. */
  public static final int MAX_REMEMBERED = 16_384;

  /** The default clock-skew allowance, in seconds. */
  public static final int DEFAULT_SKEW_SECONDS = 5;

  private static final Duration MAX_SKEW = Duration.ofMinutes(10);

  private final Supplier<TokenKeySet> keys;
  private final Clock clock;
  private final Duration skew;
  private final MemoryCell memory;

  SignedTokenVerifier(Supplier<TokenKeySet> keys) {
    this(keys, Clock.systemUTC(), Duration.ofSeconds(DEFAULT_SKEW_SECONDS));
  }

  private SignedTokenVerifier(Supplier<TokenKeySet> keys, Clock clock, Duration skew) {
    this.keys = keys;
    this.clock = clock;
    this.skew = skew;
    this.memory = new MemoryCell();
  }

  /**
   * This verifier reading time from another clock (a test's, or one the resource shares).
   *
   * @param newClock the clock
   * @return a new verifier
   * @throws IllegalArgumentException if the clock is null
   */
  public SignedTokenVerifier withClock(Clock newClock) {
    if (newClock == null) {
      throw new IllegalArgumentException("clock must not be null");
    }
    return new SignedTokenVerifier(keys, newClock, skew);
  }

  /**
   * This verifier with another clock-skew allowance: how far the resource's clock may be behind or
   * ahead of the lease database's.
   *
   * @param newSkew zero to ten minutes, a whole number of milliseconds
   * @return a new verifier
   * @throws IllegalArgumentException if the allowance is null, negative, over ten minutes or not a
   *     whole number of milliseconds
   */
  public SignedTokenVerifier withClockSkew(Duration newSkew) {
    if (newSkew == null || newSkew.isNegative() || newSkew.compareTo(MAX_SKEW) > 0) {
      throw new IllegalArgumentException(
          "clock skew must be between 0 and " + MAX_SKEW + ", was " + newSkew);
    }
    // The window comparisons are in whole milliseconds (docs/token-spec.md section 5): a finer
    // allowance would silently act as the milliseconds below it, so it is refused, as in Node.
    if (newSkew.getNano() % 1_000_000 != 0) {
      throw new IllegalArgumentException(
          "clock skew must be a whole number of milliseconds (docs/token-spec.md section 5), was "
              + newSkew);
    }
    return new SignedTokenVerifier(keys, clock, newSkew);
  }

  /**
   * The clock-skew allowance.
   *
   * @return the allowance
   */
  public Duration clockSkew() {
    return skew;
  }

  /** The verified tokens, per key set; one cell per verifier instance. */
  private static final class MemoryCell {
    private volatile Memory current = new Memory(null);
  }

  private record Memory(TokenKeySet keys, ConcurrentHashMap<FencingToken, Boolean> verified) {
    Memory(TokenKeySet keys) {
      this(keys, new ConcurrentHashMap<>());
    }
  }

  @Override
  public void verify(FencingToken token) {
    Arguments.required(token, "token");
    TokenKeySet current = keys.get();
    if (current == null) {
      throw new TokenVerificationException(
          TokenVerificationException.Reason.UNAVAILABLE, "the key set supplier returned null");
    }
    Memory m = memory.current;
    if (m.keys != current) {
      m = new Memory(current);
      memory.current = m;
    }
    TokenSignature sig = requireSignature(token, current);
    checkWindow(token, sig);
    if (m.verified.containsKey(token)) {
      return;
    }
    checkSignature(token, sig, current);
    if (m.verified.size() >= MAX_REMEMBERED) {
      m.verified.clear();
    }
    m.verified.put(token, Boolean.TRUE);
  }

  private static TokenSignature requireSignature(FencingToken token, TokenKeySet keys) {
    return token
        .signature()
        .orElseThrow(
            () ->
                new TokenVerificationException(
                    TokenVerificationException.Reason.UNSIGNED,
                    "refused unsigned token "
                        + token
                        + ": this resource admits only tokens signed by "
                        + keys
                        + "; build the lease store with a signing key (LeaseStoreBuilder.tokenSigningKey)"));
  }

  private void checkWindow(FencingToken token, TokenSignature sig) {
    // Whole milliseconds, as the spec counts: the window's ends are whole milliseconds too.
    Instant now = clock.instant().truncatedTo(java.time.temporal.ChronoUnit.MILLIS);
    if (now.isAfter(sig.validUntil().plus(skew))) {
      throw new TokenVerificationException(
          TokenVerificationException.Reason.EXPIRED,
          "refused "
              + token
              + ": it expired at "
              + sig.validUntil()
              + " and it is now "
              + now
              + " (clock skew allowed: "
              + skew
              + "); its run ended or stopped renewing, or the"
              + " token was replayed. A live lease presents a fresh token: pass the Lease, not a"
              + " token copied from it");
    }
    if (now.plus(skew).isBefore(sig.validFrom())) {
      throw new TokenVerificationException(
          TokenVerificationException.Reason.NOT_YET_VALID,
          "refused "
              + token
              + ": it is valid only from "
              + sig.validFrom()
              + " and it is now "
              + now
              + " (clock skew allowed: "
              + skew
              + "); synchronise this host's clock with"
              + " the lease database's (NTP), or raise the allowance (withClockSkew)");
    }
  }

  private static void checkSignature(FencingToken token, TokenSignature sig, TokenKeySet keys) {
    VerificationKey key =
        keys.get(sig.keyId())
            .orElseThrow(
                () ->
                    new TokenVerificationException(
                        TokenVerificationException.Reason.UNKNOWN_KEY,
                        "refused "
                            + token
                            + ": key "
                            + sig.keyId()
                            + " is not in this resource's "
                            + keys
                            + "; if the lease store signs with a new key, add its"
                            + " verification key here (docs/security.md, key rotation)"));
    byte[] value;
    try {
      value = Base64.getUrlDecoder().decode(sig.value());
    } catch (IllegalArgumentException e) {
      value = new byte[0];
    }
    if (!key.verifies(token.signedContent(), value)) {
      throw new TokenVerificationException(
          TokenVerificationException.Reason.BAD_SIGNATURE,
          "refused "
              + token
              + ": its signature does not match key "
              + sig.keyId()
              + " (forged or altered token)");
    }
  }

  @Override
  public String toString() {
    return "TokenVerifier.signedBy(" + memory.current.keys + ", skew " + skew + ")";
  }
}
