package io.leasehold.fencing;

import io.leasehold.fencing.internal.Arguments;

/**
 * A token a guard admitted.
 *
 * @param token the admitted token
 * @param previousMark the high-water mark before this admission, 0 if the key was never seen
 */
public record Admission(FencingToken token, long previousMark) {
  /**
   * Validates the components.
   *
   * @throws IllegalArgumentException if the token is null or the previous mark exceeds its fence
   */
  public Admission {
    Arguments.required(token, "token");
    if (previousMark < 0 || previousMark > token.fence()) {
      throw new IllegalArgumentException(
          "previous mark " + previousMark + " is not in [0, " + token.fence() + "]");
    }
  }

  /**
   * Whether this admission raised the mark (a newer run's first write).
   *
   * @return true if the token's fence is above the previous mark
   */
  public boolean raisedMark() {
    return token.fence() > previousMark;
  }
}
