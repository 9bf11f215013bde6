package io.leasehold.fencing;

/**
 * How a fencing token travels to a downstream service.
 *
 * <p>Send the token's {@linkplain FencingToken#toText() text form} in the {@value #HTTP_HEADER}
 * header (or a message attribute of the same name). The receiving resource owner parses it with
 * {@link FencingToken#parse(String)} and checks it with its own {@link FenceGuard}, exactly as a
 * local resource would. The header names the writer; it does not authenticate it: the receiving
 * service still authenticates the caller as usual.
 */
public final class TokenTransport {
  /** HTTP header (and message attribute) that carries a token's text form. */
  public static final String HTTP_HEADER = "Leasehold-Token";

  private TokenTransport() {}

  /**
   * Reads a token from a header value.
   *
   * @param headerValue the value of the {@value #HTTP_HEADER} header, possibly with surrounding
   *     whitespace
   * @return the token
   * @throws IllegalArgumentException if the value is missing or malformed
   */
  public static FencingToken fromHeader(String headerValue) {
    if (headerValue == null) {
      throw new IllegalArgumentException("missing " + HTTP_HEADER + " header");
    }
    return FencingToken.parse(headerValue.strip());
  }
}
