package io.leasehold.fencing;

/**
 * How a lease store signs its tokens.
 *
 * <ul>
 *   <li>{@link #HMAC_SHA256}: one shared secret signs and verifies. Fast (a few microseconds), but
 *       every resource that can verify can also mint tokens: use it where the lease store and the
 *       resources are run by the same team.
 *   <li>{@link #ED25519}: the lease store signs with a private key; resources hold only the public
 *       key, so a resource owner can verify tokens but never mint one. Slower to verify (tens to
 *       hundreds of microseconds on the JDK's implementation), which the verifier's cache of tokens
 *       it has already verified hides for a run's repeated writes.
 * </ul>
 */
public enum SignatureScheme {
  /** HMAC with SHA-256 and a shared secret of at least 32 bytes. */
  HMAC_SHA256("hmac-sha256"),
  /** Ed25519 signatures (RFC 8032), with the JDK's own implementation. */
  ED25519("ed25519");

  private final String textName;

  SignatureScheme(String textName) {
    this.textName = textName;
  }

  /**
   * The scheme's name in the text form of keys.
   *
   * @return {@code hmac-sha256} or {@code ed25519}
   */
  public String textName() {
    return textName;
  }
}
