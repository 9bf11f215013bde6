package io.leasehold.fencing;

import io.leasehold.fencing.internal.Arguments;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Base64;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;

/**
 * What a run presents to a resource: its lease key, the fence number the lease store assigned at
 * acquisition, and the run's id.
 *
 * <p>Fences are positive and strictly increase per lease key across runs, so a resource can order
 * writers; the run id only tells runs apart.
 *
 * <h2>Text form</h2>
 *
 * <p>{@link #toText()} gives a compact form for HTTP headers, MCP {@code _meta} and logs; the
 * normative definition, with test vectors, is docs/token-spec.md:
 *
 * <pre>
 * lh2.&lt;fence&gt;.&lt;run id&gt;.&lt;account id&gt;.&lt;session id&gt;[.&lt;valid from&gt;.&lt;valid until&gt;.&lt;key id&gt;.&lt;signature&gt;]
 * </pre>
 *
 * where the fence is a decimal number without sign or leading zeros, the run id is a lower-case
 * UUID, and both key parts are UTF-8 encoded as unpadded base64url, for example {@code
 * lh2.42.2f1e0c52-8e0b-4c1e-9d4e-55c3f0a2b7a1.YWNjdC03.Y2hhdC0x}. A signed token adds its validity
 * window as two decimal Unix millisecond counts, the signing key's id and the signature (unpadded
 * base64url). {@link #parse(String)} accepts exactly that form and nothing else; a token of the
 * retired {@code lh1} form, or of a future version, is refused with a message that says so.
 *
 * <h2>Signatures</h2>
 *
 * <p>An unsigned token names a lease but proves nothing: anyone can write one with any fence. A
 * lease store built with a {@link SigningKey} issues signed tokens, and a guard built with {@link
 * TokenVerifier#signedBy(TokenKeySet)} admits only those (CONTRACT C15), and only inside their
 * validity window (C20). The signature covers {@link #signedContent()}: the whole text up to its
 * last dot, so neither the fence, the run, the key, the window nor the signing key can be changed
 * without breaking it.
 *
 * @param key the lease key the token belongs to
 * @param fence the fence number, positive
 * @param runId the id of the run that holds (or held) the lease
 * @param signature the lease store's signature, empty for an unsigned token
 */
public record FencingToken(LeaseKey key, long fence, UUID runId, Optional<TokenSignature> signature)
    implements Fenced {
  /** Prefix and version of the text form. */
  public static final String TEXT_PREFIX = "lh2";

  /** The retired first version, named in the error that refuses it. */
  private static final String RETIRED_PREFIX = "lh1";

  /**
   * Upper bound on the length of text accepted by {@link #parse(String)}: room for two keys of 128
   * three-byte characters and a signature.
   */
  public static final int MAX_TEXT_LENGTH = 1400;

  /**
   * Validates the components.
   *
   * @throws IllegalArgumentException if the key, run id or signature is null or the fence is not
   *     positive
   */
  public FencingToken {
    Arguments.required(key, "key");
    Arguments.required(runId, "runId");
    if (fence <= 0) {
      throw new IllegalArgumentException("fence must be positive, was " + fence);
    }
    if (signature == null) {
      throw new IllegalArgumentException("signature must not be null (use Optional.empty())");
    }
  }

  /**
   * An unsigned token.
   *
   * @param key the lease key
   * @param fence the fence, positive
   * @param runId the run id
   * @throws IllegalArgumentException if the key or run id is null or the fence is not positive
   */
  public FencingToken(LeaseKey key, long fence, UUID runId) {
    this(key, fence, runId, Optional.empty());
  }

  /**
   * Whether the token carries a signature (which says nothing about whether it is valid: a {@link
   * TokenVerifier} decides that).
   *
   * @return true if signed
   */
  public boolean isSigned() {
    return signature.isPresent();
  }

  /**
   * This token with the given signature in place of any it had.
   *
   * @param newSignature the signature
   * @return the signed token
   */
  public FencingToken withSignature(TokenSignature newSignature) {
    if (newSignature == null) {
      throw new IllegalArgumentException("signature must not be null");
    }
    return new FencingToken(key, fence, runId, Optional.of(newSignature));
  }

  /**
   * The last instant a verifier admits this token, for a signed token.
   *
   * @return the end of the validity window; empty for an unsigned token
   */
  public Optional<Instant> validUntil() {
    return signature.map(TokenSignature::validUntil);
  }

  /**
   * This token without its signature.
   *
   * @return the unsigned token
   */
  public FencingToken unsigned() {
    return signature.isEmpty() ? this : new FencingToken(key, fence, runId);
  }

  /**
   * What a signature covers: the token's text form up to (not including) the dot before the
   * signature, as ASCII bytes. That is the unsigned text, the window's two millisecond counts and
   * the key id, each after a dot.
   *
   * @param keyId the signing key's id
   * @param validFrom the start of the validity window
   * @param validUntil its end
   * @return the bytes to sign or verify
   * @throws IllegalArgumentException if the key id or the window is malformed
   */
  public byte[] signedContent(String keyId, Instant validFrom, Instant validUntil) {
    TokenSignature.checkKeyId(keyId);
    TokenSignature.checkWindow(validFrom, validUntil);
    return (unsignedText()
            + '.'
            + validFrom.toEpochMilli()
            + '.'
            + validUntil.toEpochMilli()
            + '.'
            + keyId)
        .getBytes(StandardCharsets.US_ASCII);
  }

  /**
   * What this token's signature covers; see {@link #signedContent(String, Instant, Instant)}.
   *
   * @return the bytes
   * @throws IllegalStateException if the token is unsigned
   */
  public byte[] signedContent() {
    TokenSignature sig =
        signature.orElseThrow(() -> new IllegalStateException("the token is unsigned"));
    return signedContent(sig.keyId(), sig.validFrom(), sig.validUntil());
  }

  /** Returns this token: a bare token knows nothing of loss. */
  @Override
  public FencingToken token() {
    return this;
  }

  /**
   * The compact text form described in the class javadoc.
   *
   * @return the text form, ASCII only
   */
  public String toText() {
    String text = unsignedText();
    return signature
        .map(
            sig ->
                text
                    + '.'
                    + sig.validFrom().toEpochMilli()
                    + '.'
                    + sig.validUntil().toEpochMilli()
                    + '.'
                    + sig.keyId()
                    + '.'
                    + sig.value())
        .orElse(text);
  }

  private String unsignedText() {
    Base64.Encoder b64 = Base64.getUrlEncoder().withoutPadding();
    return TEXT_PREFIX
        + '.'
        + fence
        + '.'
        + runId
        + '.'
        + b64.encodeToString(key.accountId().getBytes(StandardCharsets.UTF_8))
        + '.'
        + b64.encodeToString(key.sessionId().getBytes(StandardCharsets.UTF_8));
  }

  /**
   * Parses the text form strictly: any deviation from the canonical form is rejected, so a token
   * that parses is exactly the token that was formatted.
   *
   * @param text the text form
   * @return the token
   * @throws IllegalArgumentException if the text is null or not a canonical token
   */
  public static FencingToken parse(String text) {
    if (text == null) {
      throw new IllegalArgumentException("token text must not be null");
    }
    if (text.length() > MAX_TEXT_LENGTH) {
      throw malformed("longer than " + MAX_TEXT_LENGTH + " characters");
    }
    String[] parts = text.split("\\.", -1);
    // The version comes first, so a verifier tells formats apart before it reads anything else.
    if (RETIRED_PREFIX.equals(parts[0])) {
      throw malformed(
          "the lh1 form (no validity window) is retired: upgrade the lease store that"
              + " issued it to a version that issues "
              + TEXT_PREFIX
              + " tokens");
    }
    if (!TEXT_PREFIX.equals(parts[0])) {
      throw malformed(
          "unknown version, expected '"
              + TEXT_PREFIX
              + "' (a newer lease store may"
              + " issue a format this verifier does not know: upgrade the verifier)");
    }
    if (parts.length != 5 && parts.length != 9) {
      throw malformed("expected 5 dot-separated parts (9 when signed), found " + parts.length);
    }
    long fence = parseFence(parts[1]);
    UUID runId = parseRunId(parts[2]);
    String accountId = decodePart("account id", parts[3]);
    String sessionId = decodePart("session id", parts[4]);
    LeaseKey key;
    try {
      key = new LeaseKey(accountId, sessionId);
    } catch (IllegalArgumentException e) {
      throw malformed(e.getMessage());
    }
    if (parts.length == 5) {
      return new FencingToken(key, fence, runId);
    }
    Instant from = Instant.ofEpochMilli(parseDecimal("valid from", parts[5], true));
    Instant until = Instant.ofEpochMilli(parseDecimal("valid until", parts[6], true));
    try {
      return new FencingToken(
          key, fence, runId, Optional.of(new TokenSignature(parts[7], from, until, parts[8])));
    } catch (IllegalArgumentException e) {
      throw malformed(e.getMessage());
    }
  }

  private static long parseFence(String part) {
    return parseDecimal("fence", part, false);
  }

  /** A decimal number without sign or leading zeros; zero itself only where {@code zeroOk}. */
  private static long parseDecimal(String name, String part, boolean zeroOk) {
    String rule =
        name
            + " must be a "
            + (zeroOk ? "" : "positive ")
            + "decimal number without sign or leading zeros";
    if (zeroOk && part.equals("0")) {
      return 0;
    }
    if (part.isEmpty() || part.length() > 19 || part.charAt(0) == '0') {
      throw malformed(rule);
    }
    for (int i = 0; i < part.length(); i++) {
      char c = part.charAt(i);
      if (c < '0' || c > '9') {
        throw malformed(rule);
      }
    }
    try {
      return Long.parseLong(part);
    } catch (NumberFormatException e) {
      throw malformed(name + " is out of range");
    }
  }

  private static UUID parseRunId(String part) {
    UUID id;
    try {
      id = UUID.fromString(part);
    } catch (IllegalArgumentException e) {
      throw malformed("run id is not a UUID");
    }
    // UUID.fromString accepts non-canonical spellings ("1-1-1-1-1"); only the canonical one is
    // ours.
    if (!id.toString().equals(part)) {
      throw malformed("run id is not a canonical lower-case UUID");
    }
    return id;
  }

  private static String decodePart(String name, String part) {
    byte[] bytes;
    try {
      bytes = Base64.getUrlDecoder().decode(part);
    } catch (IllegalArgumentException e) {
      throw malformed(name + " is not unpadded base64url");
    }
    // Re-encoding rejects padding and non-zero trailing bits, so each token has one spelling.
    if (!Base64.getUrlEncoder().withoutPadding().encodeToString(bytes).equals(part)) {
      throw malformed(name + " is not canonical unpadded base64url");
    }
    var decoder =
        StandardCharsets.UTF_8
            .newDecoder()
            .onMalformedInput(java.nio.charset.CodingErrorAction.REPORT)
            .onUnmappableCharacter(java.nio.charset.CodingErrorAction.REPORT);
    try {
      return decoder.decode(java.nio.ByteBuffer.wrap(bytes)).toString();
    } catch (java.nio.charset.CharacterCodingException e) {
      throw malformed(name + " is not valid UTF-8");
    }
  }

  private static IllegalArgumentException malformed(String why) {
    return new IllegalArgumentException("malformed fencing token: " + why);
  }

  @Override
  public String toString() {
    return "FencingToken["
        + key
        + ", fence="
        + fence
        + ", run="
        + runId
        + signature
            .map(sig -> ", signed by " + sig.keyId() + ", valid until " + sig.validUntil())
            .orElse("")
        + "]";
  }

  /**
   * Whether two tokens name the same run of the same key.
   *
   * @param other another token
   * @return true if key and run id match (fences then match too, for tokens from one store);
   *     signatures are not compared
   */
  public boolean sameRun(FencingToken other) {
    Objects.requireNonNull(other, "other");
    return key.equals(other.key) && runId.equals(other.runId);
  }
}
