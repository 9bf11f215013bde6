package io.leasehold.fencing;

import java.security.GeneralSecurityException;
import java.security.PublicKey;
import java.security.Signature;
import java.util.Arrays;
import javax.crypto.Mac;

/**
 * A key that checks token signatures: an HMAC secret or an Ed25519 public key, with its id.
 * Resources hold these, in a {@link TokenKeySet}.
 *
 * <h2>Text form</h2>
 *
 * <pre>
 * leasehold-verify-key:v1:hmac-sha256:&lt;key id&gt;:&lt;secret, unpadded base64url&gt;
 * leasehold-verify-key:v1:ed25519:&lt;key id&gt;:&lt;X.509 public key, unpadded base64url&gt;
 * </pre>
 *
 * An HMAC verification key is the shared secret itself: keep its text as secret as the signing key.
 * An Ed25519 one is public. {@link #toString()} never prints key material.
 *
 * <p>Immutable and thread-safe.
 */
public final class VerificationKey {
  static final String TEXT_PREFIX = "leasehold-verify-key:v1:";

  /** Length of an HMAC-SHA256 tag. */
  static final int HMAC_SIGNATURE_BYTES = 32;

  /** Length of an Ed25519 signature. */
  static final int ED25519_SIGNATURE_BYTES = 64;

  private final SignatureScheme scheme;
  private final String keyId;
  private final byte[] hmacSecret;
  private final PublicKey publicKey;
  private final Mac macPrototype;

  private VerificationKey(
      SignatureScheme scheme, String keyId, byte[] hmacSecret, PublicKey publicKey) {
    this.scheme = scheme;
    this.keyId = TokenSignature.checkKeyId(keyId);
    this.hmacSecret = hmacSecret;
    this.publicKey = publicKey;
    this.macPrototype = hmacSecret == null ? null : KeyCodec.mac(hmacSecret);
  }

  /**
   * An HMAC-SHA256 key.
   *
   * @param keyId the key id
   * @param secret the shared secret, 32 to 256 bytes (copied)
   * @return the key
   * @throws IllegalArgumentException if the id is malformed, the secret too short or too long, or
   *     the secret is an Ed25519 key's DER (no byte string loads as both schemes,
   *     docs/token-spec.md section 3.4: an Ed25519 public key, which anyone may know, is no secret)
   */
  public static VerificationKey hmac(String keyId, byte[] secret) {
    byte[] copy = KeyCodec.checkSecret(secret);
    KeyCodec.refuseEd25519AsSecret(copy, "verification key", keyId);
    return new VerificationKey(SignatureScheme.HMAC_SHA256, keyId, copy, null);
  }

  /**
   * An Ed25519 public key.
   *
   * @param keyId the key id
   * @param publicKey the public key
   * @return the key
   * @throws IllegalArgumentException if the id is malformed, the key is not an Ed25519 key, or its
   *     point is of small order or not canonically encoded (anyone could forge under it)
   */
  public static VerificationKey ed25519(String keyId, PublicKey publicKey) {
    if (publicKey == null || !KeyCodec.isEd25519(publicKey)) {
      throw new IllegalArgumentException("publicKey must be an Ed25519 public key");
    }
    // The same checks as the text form: exact RFC 8410 encoding, no small-order point.
    Ed25519Material.publicKey(publicKey.getEncoded(), "Ed25519 public key " + keyId);
    return new VerificationKey(SignatureScheme.ED25519, keyId, null, publicKey);
  }

  /**
   * Parses the text form (docs/token-spec.md section 3): SP, HTAB, CR and LF around it are ignored,
   * nothing else; a byte order mark, a text over 512 characters, an HMAC secret outside 32 to 256
   * bytes, and Ed25519 material other than RFC 8410's exact DER of a canonical point not of small
   * order are refused.
   *
   * @param text the text form
   * @return the key
   * @throws IllegalArgumentException if the text is not a well-formed verification key; the message
   *     never repeats the key material
   */
  public static VerificationKey parse(String text) {
    String[] parts = KeyCodec.split(text, TEXT_PREFIX, "verification key");
    String id = parts[1];
    byte[] material = KeyCodec.decode(parts[2], "verification key");
    return switch (KeyCodec.scheme(parts[0], "verification key")) {
      case HMAC_SHA256 -> {
        KeyCodec.refuseEd25519AsSecret(material, "verification key", id);
        yield hmac(id, material);
      }
      case ED25519 -> {
        yield ed25519(id, Ed25519Material.publicKey(material, "malformed verification key " + id));
      }
    };
  }

  /**
   * The text form described in the class javadoc.
   *
   * @return the text
   */
  public String toText() {
    byte[] material = hmacSecret != null ? hmacSecret : publicKey.getEncoded();
    return TEXT_PREFIX + scheme.textName() + ':' + keyId + ':' + KeyCodec.encode(material);
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

  /**
   * Whether {@code signature} is this key's valid signature of {@code content}. Constant-time for
   * HMAC.
   *
   * @param content the signed bytes
   * @param signature the signature bytes
   * @return true if valid
   */
  boolean verifies(byte[] content, byte[] signature) {
    // The cheap check before any cryptography: a signature of the wrong length is no signature.
    if (signature.length
        != (macPrototype != null ? HMAC_SIGNATURE_BYTES : ED25519_SIGNATURE_BYTES)) {
      return false;
    }
    if (macPrototype != null) {
      byte[] expected = KeyCodec.cloneMac(macPrototype).doFinal(content);
      return java.security.MessageDigest.isEqual(expected, signature);
    }
    // RFC 8032 5.1.7: S below the group order, R a canonical encoding; checked here whatever
    // the provider does.
    if (!Ed25519Material.canonicalSignature(signature)) {
      return false;
    }
    try {
      Signature s = Signature.getInstance("Ed25519");
      s.initVerify(publicKey);
      s.update(content);
      return s.verify(signature);
    } catch (GeneralSecurityException e) {
      // A malformed signature (wrong length) is simply not valid.
      return false;
    }
  }

  boolean sameMaterial(VerificationKey other) {
    return scheme == other.scheme
        && keyId.equals(other.keyId)
        && (hmacSecret != null
            ? Arrays.equals(hmacSecret, other.hmacSecret)
            : Arrays.equals(publicKey.getEncoded(), other.publicKey.getEncoded()));
  }

  @Override
  public String toString() {
    return "VerificationKey[" + scheme.textName() + ", id=" + keyId + "]";
  }
}
