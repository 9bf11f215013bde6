package io.leasehold.spring.boot;

import io.leasehold.fencing.LeaseKey;
import io.leasehold.lease.AccessDeniedException;
import io.leasehold.lease.LeaseStore;
import io.leasehold.lease.ReleaseResult;
import java.security.Principal;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.Selector;

/**
 * The {@code leaseholdadmin} actuator endpoint: force release of a session ({@code DELETE
 * /actuator/leaseholdadmin/{account}/{session}?reason=...}). Present only with {@code
 * leasehold.admin.force-release-enabled=true}. It needs an authenticated principal, whose name the
 * access policy must allow {@code FORCE_RELEASE}; every call is recorded in the lease table's audit
 * table, whether or not a lease was live.
 */
@Endpoint(id = "leaseholdadmin")
public class LeaseholdAdminEndpoint {
  private final LeaseStore store;

  /**
   * The endpoint over a store.
   *
   * @param store the store
   */
  public LeaseholdAdminEndpoint(LeaseStore store) {
    this.store = store;
  }

  /**
   * What a force release did.
   *
   * @param outcome released, not_held, denied (no principal, or the policy refused), or invalid (a
   *     bad key or reason); nothing changed unless released
   * @param detail what happened, in words
   */
  public record ForceRelease(String outcome, String detail) {}

  /**
   * Ends whichever run holds the session.
   *
   * @param account the key's account
   * @param session the key's session
   * @param reason why, recorded in the audit table
   * @param security the request's security context
   * @return the outcome
   */
  @DeleteOperation
  public ForceRelease release(
      @Selector String account, @Selector String session, String reason, SecurityContext security) {
    Principal principal = security == null ? null : security.getPrincipal();
    if (principal == null) {
      return new ForceRelease(
          "denied",
          "force release needs an authenticated principal: secure the actuator endpoints (Spring Security)");
    }
    LeaseKey key;
    try {
      key = LeaseKey.of(account, session);
    } catch (IllegalArgumentException e) {
      return new ForceRelease("invalid", e.getMessage());
    }
    try {
      ReleaseResult r = store.admin().forceRelease(key, principal.getName(), reason);
      return new ForceRelease(
          r.outcome().name().toLowerCase(java.util.Locale.ROOT),
          r.outcome() == ReleaseResult.Outcome.RELEASED
              ? "released " + key + "; its run learns at its next renewal"
              : "no live lease on " + key);
    } catch (AccessDeniedException e) {
      return new ForceRelease("denied", e.getMessage());
    } catch (IllegalArgumentException e) {
      return new ForceRelease("invalid", e.getMessage());
    }
  }
}
