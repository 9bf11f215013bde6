package io.leasehold.fencing;

import java.util.Base64;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * Checks signatures against a key set, and remembers the tokens that passed: a run presents the
 * same token for every write, and an Ed25519 check costs far more than a map lookup. A remembered
 * token is the whole record, signature included, so a changed fence, run or signature is a new
 * token and is checked again. The memory is dropped whenever the key set changes (a retired key's
 * tokens are checked, and refused, again) and when it reaches {@value #MAX_REMEMBERED} tokens.
 */
final class SignatureVerifier implements TokenVerifier {
  static final int MAX_REMEMBERED = 16_384;

  private final Supplier<TokenKeySet> keys;
  private volatile Memory memory = new Memory(null);

  SignatureVerifier(Supplier<TokenKeySet> keys) {
    this.keys = keys;
  }

  private record Memory(TokenKeySet keys, ConcurrentHashMap<FencingToken, Boolean> verified) {
    Memory(TokenKeySet keys) {
      this(keys, new ConcurrentHashMap<>());
    }
  }

  @Override
  public void verify(FencingToken token) {
    if (token == null) {
      throw new IllegalArgumentException("token must not be null");
    }
    TokenKeySet current = keys.get();
    if (current == null) {
      throw new TokenVerificationException(
          TokenVerificationException.Reason.UNAVAILABLE, "the key set supplier returned null");
    }
    Memory m = memory;
    if (m.keys != current) {
      m = new Memory(current);
      memory = m;
    }
    if (m.verified.containsKey(token)) {
      return;
    }
    check(token, current);
    if (m.verified.size() >= MAX_REMEMBERED) {
      m.verified.clear();
    }
    m.verified.put(token, Boolean.TRUE);
  }

  private static void check(FencingToken token, TokenKeySet keys) {
    if (token.signature().isEmpty()) {
      throw new TokenVerificationException(
          TokenVerificationException.Reason.UNSIGNED,
          "refused unsigned token " + token + ": this resource admits only tokens signed by "
              + keys + "; build the lease store with a signing key (LeaseStoreBuilder.tokenSigningKey)");
    }
    TokenSignature sig = token.signature().get();
    VerificationKey key =
        keys.get(sig.keyId())
            .orElseThrow(
                () ->
                    new TokenVerificationException(
                        TokenVerificationException.Reason.UNKNOWN_KEY,
                        "refused " + token + ": key " + sig.keyId() + " is not in this resource's "
                            + keys + "; if the lease store signs with a new key, add its"
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
          "refused " + token + ": its signature does not match key " + sig.keyId()
              + " (forged or altered token)");
    }
  }

  @Override
  public String toString() {
    return "TokenVerifier.signedBy(" + memory.keys + ")";
  }
}
