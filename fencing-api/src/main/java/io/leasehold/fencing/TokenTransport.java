package io.leasehold.fencing;

import io.leasehold.fencing.internal.Arguments;

/**
 * How a fencing token travels to a downstream service.
 *
 * <p>Send the token's {@linkplain FencingToken#toText() text form} in the {@value #HTTP_HEADER}
 * header (or a message attribute of the same name). The receiving resource owner parses it with
 * {@link #verifyHeader(String, TokenVerifier)} and checks it with its own {@link FenceGuard},
 * exactly as a local resource would. A token names the writer; only a verified one (signed by the
 * lease store, CONTRACT C15) proves the lease store issued it. The receiving service still
 * authenticates the caller as usual.
 *
 * <pre>{@code
 * // in any HTTP framework's handler:
 * try {
 *   FencingToken token = TokenTransport.verifyHeader(request.header("Leasehold-Token"), verifier);
 *   files.write(token, path, body);             // StaleFenceException: answer 409
 * } catch (TokenVerificationException e) {
 *   response.status(e.httpStatus());            // 400 malformed, 401 unsigned or forged, ...
 * }
 * }</pre>
 */
public final class TokenTransport {
  /** HTTP header (and message attribute) that carries a token's text form. */
  public static final String HTTP_HEADER = "Leasehold-Token";

  private TokenTransport() {}

  /**
   * Reads a token from a header value.
   *
   * @param headerValue the value of the {@value #HTTP_HEADER} header, possibly with the optional
   *     white space of RFC 9110 (SP and HTAB) around it
   * @return the token
   * @throws IllegalArgumentException if the value is missing or malformed
   */
  public static FencingToken fromHeader(String headerValue) {
    if (headerValue == null) {
      throw new IllegalArgumentException("missing " + HTTP_HEADER + " header");
    }
    return FencingToken.parse(fieldValue(headerValue));
  }

  /**
   * The field value without the optional white space HTTP allows around it (RFC 9110 section 5.5:
   * SP and HTAB only). Anything else white, a line feed, U+2028 or U+3000, stays and makes the
   * token malformed, exactly as in the text form (docs/token-spec.md section 8).
   */
  static String fieldValue(String headerValue) {
    return KeyCodec.strip(headerValue, " \t");
  }

  /**
   * Reads and verifies a token from a header value: what a resource service calls on every request
   * before it lets the token near a guard.
   *
   * @param headerValue the value of the {@value #HTTP_HEADER} header, or null if absent
   * @param verifier the service's verifier
   * @return the verified token
   * @throws TokenVerificationException if the header is absent ({@link
   *     TokenVerificationException.Reason#MISSING}, 401), empty or malformed after SP and HTAB
   *     around it are removed ({@link TokenVerificationException.Reason#MALFORMED}, 400), or the
   *     token fails verification; {@link TokenVerificationException#httpStatus()} is the status to
   *     answer with
   */
  public static FencingToken verifyHeader(String headerValue, TokenVerifier verifier) {
    Arguments.required(verifier, "verifier");
    if (headerValue == null) {
      throw new TokenVerificationException(
          TokenVerificationException.Reason.MISSING,
          "missing " + HTTP_HEADER + " header: the writer must send its fencing token");
    }
    FencingToken token;
    try {
      token = FencingToken.parse(fieldValue(headerValue));
    } catch (IllegalArgumentException e) {
      throw new TokenVerificationException(
          TokenVerificationException.Reason.MALFORMED,
          HTTP_HEADER + " header: " + e.getMessage(),
          e);
    }
    verifier.verify(token);
    return token;
  }
}
