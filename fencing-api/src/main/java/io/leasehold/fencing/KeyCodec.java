package io.leasehold.fencing;

import java.security.GeneralSecurityException;
import java.security.Key;
import java.util.Base64;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/** The text forms of keys and the JDK crypto calls shared by the key classes. */
final class KeyCodec {
  static final int MIN_SECRET_BYTES = 32;

  /** Longest HMAC secret: its text form then fits in {@value #MAX_TEXT} characters. */
  static final int MAX_SECRET_BYTES = 256;

  /** Longest key text, after the white space of {@link #stripKeyText} is removed. */
  static final int MAX_TEXT = 512;

  private KeyCodec() {}

  /** Splits {@code <prefix><scheme>:<id>:<material>} into scheme, id and material. */
  static String[] split(String text, String prefix, String what) {
    if (text == null) {
      throw new IllegalArgumentException(what + " text must not be null");
    }
    String t = stripKeyText(text);
    if (t.startsWith("\uFEFF")) {
      throw new IllegalArgumentException(
          "malformed "
              + what
              + ": the text starts with a byte order"
              + " mark (U+FEFF); save the key file as UTF-8 without one");
    }
    if (t.length() > MAX_TEXT) {
      throw new IllegalArgumentException(
          "malformed "
              + what
              + ": longer than "
              + MAX_TEXT
              + " characters (an HMAC secret has at most "
              + MAX_SECRET_BYTES
              + " bytes)");
    }
    if (!t.startsWith(prefix)) {
      throw new IllegalArgumentException(
          "malformed " + what + ": expected text starting with '" + prefix + "'");
    }
    String[] parts = t.substring(prefix.length()).split(":", -1);
    if (parts.length != 3) {
      throw new IllegalArgumentException(
          "malformed " + what + ": expected " + prefix + "<scheme>:<key id>:<key material>");
    }
    TokenSignature.checkKeyId(parts[1]);
    return parts;
  }

  /**
   * The key text without the white space a text file adds around it: SP, HTAB, CR and LF at either
   * end, nothing else (docs/token-spec.md section 3.1). {@link String#strip()} would also remove
   * U+001C-U+001F and Unicode spaces, which the spec does not allow.
   */
  static String stripKeyText(String text) {
    return strip(text, " \t\r\n");
  }

  /**
   * {@code text} without the characters of {@code white} at either end; what the specs call white
   * space differs by place, so each caller names its own.
   */
  static String strip(String text, String white) {
    int start = 0;
    int end = text.length();
    while (start < end && white.indexOf(text.charAt(start)) >= 0) {
      start++;
    }
    while (end > start && white.indexOf(text.charAt(end - 1)) >= 0) {
      end--;
    }
    return text.substring(start, end);
  }

  static SignatureScheme scheme(String name, String what) {
    for (SignatureScheme s : SignatureScheme.values()) {
      if (s.textName().equals(name)) {
        return s;
      }
    }
    throw new IllegalArgumentException(
        "malformed " + what + ": unknown scheme '" + name + "' (hmac-sha256 or ed25519)");
  }

  static byte[] decode(String material, String what) {
    if (!TokenSignature.canonical(material)) {
      throw new IllegalArgumentException(
          "malformed " + what + ": key material is not canonical unpadded base64url");
    }
    return Base64.getUrlDecoder().decode(material);
  }

  /**
   * Refuses HMAC key material that is an Ed25519 key in its own encoding (issue 27): the scheme is
   * pinned by the material, so editing {@code ed25519} to {@code hmac-sha256} in a key's text
   * cannot turn a public key, which anyone may know, into a shared secret that mints tokens. The
   * object factories ({@code hmac(id, bytes)}) refuse the same bytes, so code that builds its key
   * from a key file's decoded material gets the same answer as the text form.
   */
  static void refuseEd25519AsSecret(byte[] material, String what, String keyId) {
    if (Ed25519Material.looksLikeEd25519Der(material)) {
      throw new IllegalArgumentException(
          "malformed "
              + what
              + " "
              + keyId
              + ": its material is an Ed25519 key, not an HMAC secret;"
              + " a key's scheme cannot be changed by editing its text or by passing its bytes as"
              + " a secret (docs/token-spec.md section 3.4)");
    }
  }

  static String encode(byte[] bytes) {
    return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
  }

  static byte[] checkSecret(byte[] secret) {
    if (secret == null || secret.length < MIN_SECRET_BYTES || secret.length > MAX_SECRET_BYTES) {
      throw new IllegalArgumentException(
          "an HMAC secret must have "
              + MIN_SECRET_BYTES
              + " to "
              + MAX_SECRET_BYTES
              + " bytes (256 to 2048 bits), was "
              + (secret == null ? "null" : secret.length + " bytes"));
    }
    return secret.clone();
  }

  static boolean isEd25519(Key key) {
    return "Ed25519".equals(key.getAlgorithm()) || "EdDSA".equals(key.getAlgorithm());
  }

  static Mac mac(byte[] secret) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(secret, "HmacSHA256"));
      return mac;
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("this JVM has no HmacSHA256", e);
    }
  }

  /** A fresh Mac with the prototype's key: cloning skips the provider lookup and key setup. */
  static Mac cloneMac(Mac prototype) {
    try {
      return (Mac) prototype.clone();
    } catch (CloneNotSupportedException e) {
      throw new IllegalStateException("the JVM's HmacSHA256 cannot be cloned", e);
    }
  }

  /** The signature bytes of a signed token, or an empty array if they are not base64url. */
  static byte[] decodeSignature(FencingToken token) {
    try {
      return Base64.getUrlDecoder().decode(token.signature().orElseThrow().value());
    } catch (IllegalArgumentException e) {
      return new byte[0];
    }
  }
}
