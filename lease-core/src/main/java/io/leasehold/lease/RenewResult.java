package io.leasehold.lease;

import java.time.Instant;
import java.util.Optional;

/**
 * What a renewal did.
 *
 * @param renewed true if the lease was live and now ends at {@code expiresAt}; false if the run no
 *     longer held it (expired, released or taken over): nothing was changed, and the lease is
 *     treated as lost from then on
 * @param expiresAt the new expiry in database time, when renewed
 * @param databaseNow the database clock at the renewal; empty when no statement was sent because
 *     the lease was already known lost or released locally (a lost lease is answered without a
 *     round trip), or the access policy refused the renewal
 */
public record RenewResult(
    boolean renewed, Optional<Instant> expiresAt, Optional<Instant> databaseNow) {
  /**
   * Checks the components agree.
   *
   * @throws IllegalArgumentException if they do not
   */
  public RenewResult {
    if (expiresAt == null || databaseNow == null || renewed != expiresAt.isPresent()) {
      throw new IllegalArgumentException("expiresAt is present exactly when renewed");
    }
    if (renewed && databaseNow.isEmpty()) {
      throw new IllegalArgumentException("a renewal has the database time it was made at");
    }
  }
}
