package io.leasehold.fencing;

/**
 * The run's lease is known locally to be lost, so a fenced operation was refused before it reached
 * the resource. Not worth retrying with the same lease: acquire a new one.
 */
public class LeaseLostException extends WriteRefusedException {
  private static final long serialVersionUID = 1L;

  private final transient FencingToken token;

  /**
   * Creates the exception.
   *
   * @param token the token of the lost lease
   * @param reason why the lease is considered lost
   */
  public LeaseLostException(FencingToken token, String reason) {
    super("lease " + token + " is lost (" + reason + "); fenced operations are refused");
    this.token = token;
  }

  /**
   * The token of the lost lease.
   *
   * @return the token
   */
  public FencingToken token() {
    return token;
  }
}
