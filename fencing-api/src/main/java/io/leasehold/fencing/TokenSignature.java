package io.leasehold.fencing;

import java.time.Instant;
import java.util.regex.Pattern;

/**
 * The authenticator a lease store attaches to a token it issued: which key signed it, the time
 * window in which the token may be presented (CONTRACT C20), and the signature (an HMAC-SHA256 tag
 * or an Ed25519 signature) over the token's {@linkplain FencingToken#signedContent() signed
 * content}, which includes the window.
 *
 * <p>The window is in the lease database's time: from the lease's acquisition to its expiry, moved
 * on by every renewal. Both ends have millisecond precision, because the text form carries Unix
 * milliseconds.
 *
 * @param keyId the signing key's id: 1 to {@value #MAX_KEY_ID_LENGTH} characters of {@code A-Z a-z
 *     0-9 _ -}
 * @param validFrom the first instant at which the token may be presented
 * @param validUntil the last instant at which it may be presented, not before {@code validFrom}
 * @param value the signature bytes as unpadded base64url, 1 to {@value #MAX_VALUE_LENGTH}
 *     characters
 */
public record TokenSignature(String keyId, Instant validFrom, Instant validUntil, String value) {
  /** Longest accepted key id. */
  public static final int MAX_KEY_ID_LENGTH = 64;

  /** Longest accepted signature text (an Ed25519 signature is 86 characters). */
  public static final int MAX_VALUE_LENGTH = 128;

  private static final Pattern KEY_ID =
      Pattern.compile("[A-Za-z0-9_-]{1," + MAX_KEY_ID_LENGTH + "}");
  private static final Pattern BASE64URL =
      Pattern.compile("[A-Za-z0-9_-]{1," + MAX_VALUE_LENGTH + "}");

  /**
   * Validates both parts.
   *
   * @throws IllegalArgumentException if the key id or the value is not of the form above, or the
   *     window is null, before 1970, finer than a millisecond or ends before it starts
   */
  public TokenSignature {
    checkKeyId(keyId);
    checkWindow(validFrom, validUntil);
    if (value == null || !BASE64URL.matcher(value).matches()) {
      throw new IllegalArgumentException(
          "signature value must be 1 to " + MAX_VALUE_LENGTH + " characters of unpadded base64url");
    }
    if (!canonical(value)) {
      // Issue 27: set bits in the unused trailing position decode to the same bytes, so the
      // signature would verify under many spellings; one token has one text.
      throw new IllegalArgumentException("signature value is not canonical unpadded base64url");
    }
  }

  /**
   * Checks a validity window.
   *
   * @param validFrom the start
   * @param validUntil the end
   * @throws IllegalArgumentException if either is null, before the Unix epoch, not a whole
   *     millisecond, or the end is before the start
   */
  public static void checkWindow(Instant validFrom, Instant validUntil) {
    if (validFrom == null || validUntil == null) {
      throw new IllegalArgumentException("the validity window must not be null");
    }
    if (validFrom.isBefore(Instant.EPOCH)
        || validFrom.getNano() % 1_000_000 != 0
        || validUntil.getNano() % 1_000_000 != 0) {
      throw new IllegalArgumentException(
          "the validity window must be whole milliseconds after 1970, was "
              + validFrom
              + " to "
              + validUntil);
    }
    if (validUntil.isBefore(validFrom)) {
      throw new IllegalArgumentException(
          "the validity window ends (" + validUntil + ") before it starts (" + validFrom + ")");
    }
  }

  /** Whether the text decodes and encodes back to itself (no padding, no stray trailing bits). */
  static boolean canonical(String base64url) {
    try {
      byte[] bytes = java.util.Base64.getUrlDecoder().decode(base64url);
      return java.util.Base64.getUrlEncoder()
          .withoutPadding()
          .encodeToString(bytes)
          .equals(base64url);
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  /**
   * Checks a key id.
   *
   * @param keyId the id
   * @return the id
   * @throws IllegalArgumentException if it is null or not 1 to 64 characters of {@code A-Z a-z 0-9
   *     _ -}
   */
  public static String checkKeyId(String keyId) {
    if (keyId == null || !KEY_ID.matcher(keyId).matches()) {
      throw new IllegalArgumentException(
          "key id must be 1 to "
              + MAX_KEY_ID_LENGTH
              + " characters of A-Z a-z 0-9 _ -, was "
              + (keyId == null ? "null" : "'" + keyId + "'"));
    }
    return keyId;
  }

  /** Names the key only: the signature value is not worth printing in logs. */
  @Override
  public String toString() {
    return "TokenSignature[key=" + keyId + ", valid " + validFrom + " to " + validUntil + "]";
  }
}
