package io.leasehold.fencing;

/**
 * Something that presents a fencing token to a resource: a token itself, or a run's lease handle.
 *
 * <p>Resources call {@link #token()} immediately before they admit an operation. A lease handle
 * that already knows its lease is lost throws {@link LeaseLostException} there, so the operation is
 * refused locally before it reaches the resource (CONTRACT C6). A bare {@link FencingToken} (for
 * example one parsed from a request header) knows nothing about loss and only the fence check
 * protects the resource.
 */
@FunctionalInterface
public interface Fenced {
  /**
   * The token to present.
   *
   * @return the token, never null
   * @throws LeaseLostException if the presenter knows its lease is lost
   */
  FencingToken token();

  /**
   * What a resource calls to obtain the token it is about to check: asks {@code fenced} for its
   * token (so a lost lease refuses here) and rejects nulls with a clear message.
   *
   * @param fenced the presenter
   * @return its token
   * @throws IllegalArgumentException if {@code fenced} or its token is null
   * @throws LeaseLostException if the presenter knows its lease is lost
   */
  static FencingToken present(Fenced fenced) {
    if (fenced == null) {
      throw new IllegalArgumentException(
          "the lease (or token) presented must not be null: pass the run's Lease or its FencingToken");
    }
    FencingToken token = fenced.token();
    if (token == null) {
      throw new IllegalArgumentException(fenced.getClass().getName() + ".token() returned null");
    }
    return token;
  }
}
