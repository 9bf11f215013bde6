package io.leasehold.fencing.internal;

import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.TokenVerificationException;

/**
 * The refusal of a valid token for something its key does not own (CONTRACT C19), worded once for
 * every guard that has a scope: what was asked for, whose it is, the scope that says so, and what
 * to do. Not an API.
 */
public final class OutOfScope {
  private OutOfScope() {}

  /**
   * The refusal, {@link TokenVerificationException.Reason#OUT_OF_SCOPE}.
   *
   * @param token the refused token
   * @param target what it was presented for ("path a/b", "tool send")
   * @param owned what belongs to another key ("path", "call")
   * @param owner the key the scope gives it to
   * @param scope the scope, as it describes itself
   * @param repair what to do instead, or what was left untouched
   * @return the exception to throw
   */
  public static TokenVerificationException refusal(
      FencingToken token, String target, String owned, String owner, Object scope, String repair) {
    return new TokenVerificationException(
        TokenVerificationException.Reason.OUT_OF_SCOPE,
        "refused "
            + token.unsigned()
            + " for "
            + target
            + ": the "
            + owned
            + " belongs to "
            + owner
            + ", not to key "
            + token.key()
            + " ("
            + scope
            + "); "
            + repair);
  }
}
