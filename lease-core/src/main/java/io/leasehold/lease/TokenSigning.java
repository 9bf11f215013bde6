package io.leasehold.lease;

import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.SigningKey;
import java.time.Instant;

/**
 * How a store issues tokens: signed for the lease's window in database time when the store has a
 * signing key, so a copied token stops working soon after the run stops renewing; as they are
 * otherwise.
 *
 * @param key the store's signing key, or null
 */
record TokenSigning(SigningKey key) {
  /**
   * The token as this store issues it, for a lease valid from {@code validFrom} to {@code
   * validUntil}.
   */
  FencingToken sign(FencingToken token, Instant validFrom, Instant validUntil) {
    return key == null ? token : key.sign(token.unsigned(), validFrom, validUntil);
  }
}
