package io.leasehold.fencing;

import io.leasehold.fencing.internal.Arguments;
import java.util.function.Supplier;

/**
 * How a guard decides that a token was issued by the lease store (CONTRACT C15), before it looks at
 * the high-water mark. Every guard is built with one, chosen explicitly:
 *
 * <ul>
 *   <li>{@link #signedBy(TokenKeySet)}: admit only tokens signed by one of the keys (HMAC or
 *       Ed25519); for resources that receive tokens from anyone who can reach them.
 *   <li>online, against the lease table, for resources that can reach the lease database: {@code
 *       LeaseTableVerifier} in {@code resource-adapters}, or the database writer's {@code
 *       verifyAgainstLeaseTable}, which checks inside the write's own transaction.
 *   <li>{@link #trustEveryWriter()}: no verification at all, for a resource inside one process
 *       whose writers are all trusted code. A forged token with a high fence then locks the key's
 *       honest runs out until an operator resets the mark.
 * </ul>
 *
 * <p>A verifier must refuse by throwing {@link TokenVerificationException} and must not change
 * anything. Implementations are thread-safe.
 */
@FunctionalInterface
public interface TokenVerifier {
  /**
   * Checks a token.
   *
   * @param token the presented token, never null
   * @throws TokenVerificationException if the token cannot be shown to come from the lease store
   */
  void verify(FencingToken token);

  /**
   * Whether this verifier admits every token unchecked ({@link #trustEveryWriter()}).
   *
   * @return true only for the opt-out
   */
  default boolean trustsEveryWriter() {
    return false;
  }

  /**
   * Admits tokens signed by a key of the set, inside their validity window give or take {@value
   * SignedTokenVerifier#DEFAULT_SKEW_SECONDS} seconds on the system clock; {@link
   * SignedTokenVerifier#withClock} and {@link SignedTokenVerifier#withClockSkew} change either.
   *
   * @param keys the accepted keys
   * @return the verifier
   */
  static SignedTokenVerifier signedBy(TokenKeySet keys) {
    Arguments.required(keys, "keys");
    return new SignedTokenVerifier(() -> keys);
  }

  /**
   * Admits tokens signed by a key of the set the supplier returns at each verification, so a
   * running resource can rotate keys (the supplier might re-read a file when it changes). The
   * verifier remembers tokens it has verified for as long as the supplier returns the same set, and
   * checks their validity window on every call.
   *
   * @param keys supplies the current set, never null, quickly
   * @return the verifier
   */
  static SignedTokenVerifier signedBy(Supplier<TokenKeySet> keys) {
    Arguments.required(keys, "keys");
    return new SignedTokenVerifier(keys);
  }

  /**
   * The opt-out: every token is taken at its word. Only for a resource whose every writer is
   * trusted code in one process; never for a resource that receives tokens over a network.
   *
   * @return the verifier
   */
  static TokenVerifier trustEveryWriter() {
    return TrustEveryWriter.INSTANCE;
  }
}

/** The named opt-out. */
enum TrustEveryWriter implements TokenVerifier {
  INSTANCE;

  @Override
  public void verify(FencingToken token) {
    Arguments.required(token, "token");
  }

  @Override
  public boolean trustsEveryWriter() {
    return true;
  }

  @Override
  public String toString() {
    return "TokenVerifier.trustEveryWriter()";
  }
}
