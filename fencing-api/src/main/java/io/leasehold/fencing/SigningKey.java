package io.leasehold.fencing;

import io.leasehold.fencing.internal.Arguments;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import javax.crypto.Mac;

/**
 * The key a lease store signs its tokens with (CONTRACT C15): an HMAC secret or an Ed25519 key
 * pair, with its id. Give it to the lease store's builder; give its {@link #verificationKey()} to
 * the resources.
 *
 * <h2>Text form</h2>
 *
 * <pre>
 * leasehold-signing-key:v1:hmac-sha256:&lt;key id&gt;:&lt;secret, unpadded base64url&gt;
 * leasehold-signing-key:v1:ed25519:&lt;key id&gt;:&lt;PKCS#8 private key&gt;.&lt;X.509 public key&gt;
 * </pre>
 *
 * Keep it secret (a file readable only by the service, or a secret manager). {@link #toString()}
 * never prints key material. Make one with {@link #generate(SignatureScheme, String)}.
 *
 * <p>Immutable and thread-safe.
 */
public final class SigningKey {
  static final String TEXT_PREFIX = "leasehold-signing-key:v1:";

  private final SignatureScheme scheme;
  private final String keyId;
  private final byte[] hmacSecret;
  private final KeyPair keyPair;
  private final Mac macPrototype;
  private final VerificationKey verificationKey;

  private SigningKey(String keyId, byte[] hmacSecret, KeyPair keyPair) {
    this.keyId = TokenSignature.checkKeyId(keyId);
    this.hmacSecret = hmacSecret;
    this.keyPair = keyPair;
    if (hmacSecret != null) {
      this.scheme = SignatureScheme.HMAC_SHA256;
      this.macPrototype = KeyCodec.mac(hmacSecret);
      this.verificationKey = VerificationKey.hmac(keyId, hmacSecret);
    } else {
      this.scheme = SignatureScheme.ED25519;
      this.macPrototype = null;
      this.verificationKey = VerificationKey.ed25519(keyId, keyPair.getPublic());
    }
  }

  /**
   * An HMAC-SHA256 signing key.
   *
   * @param keyId the key id
   * @param secret the shared secret, 32 to 256 bytes (copied)
   * @return the key
   * @throws IllegalArgumentException if the id is malformed, the secret too short or too long, or
   *     the secret is an Ed25519 key's DER (no byte string loads as both schemes,
   *     docs/token-spec.md section 3.4: an Ed25519 public key, which anyone may know, is no secret)
   */
  public static SigningKey hmac(String keyId, byte[] secret) {
    byte[] copy = KeyCodec.checkSecret(secret);
    KeyCodec.refuseEd25519AsSecret(copy, "signing key", keyId);
    return new SigningKey(keyId, copy, null);
  }

  /**
   * An Ed25519 signing key.
   *
   * @param keyId the key id
   * @param keyPair the key pair
   * @return the key
   * @throws IllegalArgumentException if the id is malformed, the pair is not Ed25519, its public
   *     key is refused (small order, non-canonical) or is not the private key's own
   */
  public static SigningKey ed25519(String keyId, KeyPair keyPair) {
    if (keyPair == null
        || keyPair.getPrivate() == null
        || keyPair.getPublic() == null
        || !KeyCodec.isEd25519(keyPair.getPrivate())
        || !KeyCodec.isEd25519(keyPair.getPublic())) {
      throw new IllegalArgumentException("keyPair must be an Ed25519 key pair");
    }
    SigningKey key = new SigningKey(keyId, null, keyPair);
    key.checkPairMatches();
    return key;
  }

  /**
   * Generates a new random key.
   *
   * @param scheme the scheme
   * @param keyId the new key's id
   * @return the key
   * @throws IllegalArgumentException if the id is malformed
   */
  public static SigningKey generate(SignatureScheme scheme, String keyId) {
    Arguments.required(scheme, "scheme");
    TokenSignature.checkKeyId(keyId);
    if (scheme == SignatureScheme.HMAC_SHA256) {
      byte[] secret = new byte[32];
      SecureRandom random = new SecureRandom();
      do {
        random.nextBytes(secret);
      } while (Ed25519Material.looksLikeEd25519Der(secret)); // p < 2^-40, but never a refused key
      return hmac(keyId, secret);
    }
    try {
      return ed25519(keyId, KeyPairGenerator.getInstance("Ed25519").generateKeyPair());
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("this JVM has no Ed25519", e);
    }
  }

  /**
   * Parses the text form (docs/token-spec.md section 3): SP, HTAB, CR and LF around it are ignored,
   * nothing else; a byte order mark, a text over 512 characters, an HMAC secret outside 32 to 256
   * bytes, and Ed25519 material other than RFC 8410's exact DER of a canonical point not of small
   * order are refused (and for a signing key, halves that are not one pair).
   *
   * @param text the text form
   * @return the key
   * @throws IllegalArgumentException if the text is not a well-formed signing key; the message
   *     never repeats the key material
   */
  public static SigningKey parse(String text) {
    String[] parts = KeyCodec.split(text, TEXT_PREFIX, "signing key");
    String id = parts[1];
    return switch (KeyCodec.scheme(parts[0], "signing key")) {
      case HMAC_SHA256 -> {
        byte[] secret = KeyCodec.decode(parts[2], "signing key");
        KeyCodec.refuseEd25519AsSecret(secret, "signing key", id);
        yield hmac(id, secret);
      }
      case ED25519 -> {
        String[] pair = parts[2].split("\\.", -1);
        if (pair.length != 2) {
          throw new IllegalArgumentException(
              "malformed signing key " + id + ": expected <private key>.<public key>");
        }
        String context = "malformed signing key " + id;
        PrivateKey priv =
            Ed25519Material.privateKey(KeyCodec.decode(pair[0], "signing key"), context);
        PublicKey pub = Ed25519Material.publicKey(KeyCodec.decode(pair[1], "signing key"), context);
        SigningKey key = ed25519(id, new KeyPair(pub, priv));
        key.checkPairMatches();
        yield key;
      }
    };
  }

  private void checkPairMatches() {
    FencingToken probe =
        new FencingToken(LeaseKey.of("probe", "probe"), 1, new java.util.UUID(0, 1));
    FencingToken signed = sign(probe, Instant.EPOCH, Instant.EPOCH);
    if (!verificationKey.verifies(signed.signedContent(), KeyCodec.decodeSignature(signed))) {
      throw new IllegalArgumentException(
          "malformed signing key " + keyId + ": its public key does not match its private key");
    }
  }

  /**
   * The text form described in the class javadoc.
   *
   * @return the text; secret
   */
  public String toText() {
    String material =
        hmacSecret != null
            ? KeyCodec.encode(hmacSecret)
            : KeyCodec.encode(keyPair.getPrivate().getEncoded())
                + '.'
                + KeyCodec.encode(keyPair.getPublic().getEncoded());
    return TEXT_PREFIX + scheme.textName() + ':' + keyId + ':' + material;
  }

  /**
   * Signs a token for a validity window: the lease store calls this when it issues a token and each
   * time it renews the lease, with the lease's acquisition and its new expiry, both in database
   * time (CONTRACT C20). Both ends are truncated to the millisecond, the precision of the text
   * form.
   *
   * @param token the token (any signature it has is replaced)
   * @param validFrom the first instant a verifier may admit the token
   * @param validUntil the last instant, not before {@code validFrom}
   * @return the signed token
   * @throws IllegalArgumentException if an argument is null, before 1970, or the window ends before
   *     it starts
   */
  public FencingToken sign(FencingToken token, Instant validFrom, Instant validUntil) {
    Arguments.required(token, "token");
    if (validFrom == null || validUntil == null) {
      throw new IllegalArgumentException("the validity window must not be null");
    }
    Instant from = validFrom.truncatedTo(ChronoUnit.MILLIS);
    Instant until = validUntil.truncatedTo(ChronoUnit.MILLIS);
    byte[] content = token.signedContent(keyId, from, until);
    byte[] signature;
    if (macPrototype != null) {
      signature = KeyCodec.cloneMac(macPrototype).doFinal(content);
    } else {
      try {
        Signature s = Signature.getInstance("Ed25519");
        s.initSign(keyPair.getPrivate());
        s.update(content);
        signature = s.sign();
      } catch (GeneralSecurityException e) {
        throw new IllegalStateException("Ed25519 signing failed", e);
      }
    }
    return token.withSignature(new TokenSignature(keyId, from, until, KeyCodec.encode(signature)));
  }

  /**
   * Signs a token valid from the clock's present instant for the given time: for a resource owner's
   * own tools and tests. A lease store signs with the database's times instead.
   *
   * @param token the token (any signature it has is replaced)
   * @param clock where the window starts
   * @param validity how long the token stays valid, not negative
   * @return the signed token
   * @throws IllegalArgumentException if an argument is null or the validity negative
   */
  public FencingToken sign(FencingToken token, java.time.Clock clock, java.time.Duration validity) {
    if (clock == null || validity == null || validity.isNegative()) {
      throw new IllegalArgumentException("clock and a non-negative validity are required");
    }
    Instant from = clock.instant();
    return sign(token, from, from.plus(validity));
  }

  /**
   * The key that verifies this key's signatures: the same secret for HMAC, the public key for
   * Ed25519.
   *
   * @return the verification key
   */
  public VerificationKey verificationKey() {
    return verificationKey;
  }

  /**
   * The key id.
   *
   * @return the id
   */
  public String keyId() {
    return keyId;
  }

  /**
   * The scheme.
   *
   * @return the scheme
   */
  public SignatureScheme scheme() {
    return scheme;
  }

  @Override
  public String toString() {
    return "SigningKey[" + scheme.textName() + ", id=" + keyId + "]";
  }
}
