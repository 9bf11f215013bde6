package io.leasehold.fencing;

/**
 * A resource refused a token it could not verify (CONTRACT C15): unsigned where a signature is
 * required, signed by a key the resource does not know, with a signature that does not match, or
 * naming a fence or run the lease table never issued. The resource changed nothing, and its
 * high-water mark was not touched. Never worth retrying with the same token: either the token is
 * forged or damaged, or the resource's keys are out of date ({@link Reason#UNKNOWN_KEY}: add the
 * lease store's current verification key to the resource's key set).
 */
public class TokenVerificationException extends WriteRefusedException {
  private static final long serialVersionUID = 1L;

  /** Why a token was refused. */
  public enum Reason {
    /** No token was presented (an HTTP request without the header). */
    MISSING(401),
    /** The token's text is not a token. */
    MALFORMED(400),
    /** The token carries no signature, and this resource admits only signed tokens. */
    UNSIGNED(401),
    /** The token was signed by a key this resource does not know (or has retired). */
    UNKNOWN_KEY(401),
    /** The signature does not match the token: forged or tampered with. */
    BAD_SIGNATURE(401),
    /**
     * The token's validity window ended, beyond the verifier's clock-skew allowance (CONTRACT C20):
     * its run ended or stopped renewing, or the token was copied and replayed. A live lease
     * presents a fresh token after every renewal. Online verification gives it at once for a
     * genuine token whose run no longer holds the lease: released, expired, or superseded by a
     * newer run.
     */
    EXPIRED(401),
    /**
     * The token's validity window starts later than the verifier's clock plus its skew allowance:
     * the lease database's clock and the resource's disagree, or the token is forged.
     */
    NOT_YET_VALID(401),
    /**
     * The token is valid, but for another lease key than the one the resource owner assigned what
     * it asks to touch (CONTRACT C19).
     */
    OUT_OF_SCOPE(403),
    /** The lease table never issued this fence for this key, or names another run for it. */
    NOT_ISSUED(403),
    /** The verifier could not reach what it verifies against (the lease database). */
    UNAVAILABLE(503);

    private final int httpStatus;

    Reason(int httpStatus) {
      this.httpStatus = httpStatus;
    }

    /**
     * The HTTP status a resource service should answer with.
     *
     * @return 400, 401, 403 or 503
     */
    public int httpStatus() {
      return httpStatus;
    }
  }

  private final Reason reason;

  /**
   * Creates the exception.
   *
   * @param reason why
   * @param message what was refused and how to repair it
   */
  public TokenVerificationException(Reason reason, String message) {
    super(message);
    this.reason = reason;
  }

  /**
   * Creates the exception with a cause.
   *
   * @param reason why
   * @param message what was refused and how to repair it
   * @param cause the underlying failure
   */
  public TokenVerificationException(Reason reason, String message, Throwable cause) {
    super(message, cause);
    this.reason = reason;
  }

  /**
   * Why the token was refused.
   *
   * @return the reason
   */
  public Reason reason() {
    return reason;
  }

  /**
   * The HTTP status for this refusal; see {@link Reason#httpStatus()}.
   *
   * @return the status
   */
  public int httpStatus() {
    return reason.httpStatus();
  }
}
