package io.leasehold.spring.boot;

import io.leasehold.lease.LeaseStatus;
import io.leasehold.lease.LeaseStore;
import java.security.Principal;
import java.util.List;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;

/**
 * The {@code leasehold} actuator endpoint: the leases held now, across every process on the lease
 * table, as the access policy lets the caller see them ({@code READ_STATUS} per key). The caller is
 * the authenticated principal's name, or {@value #ANONYMOUS} when there is none. Run ids are not
 * shown.
 */
@Endpoint(id = "leasehold")
public class LeaseholdEndpoint {
  /** The caller name passed to the access policy for a request without a principal. */
  public static final String ANONYMOUS = "actuator";

  /** Most leases listed. */
  public static final int LIMIT = 1000;

  private final LeaseStore store;

  /**
   * The endpoint over a store.
   *
   * @param store the store
   */
  public LeaseholdEndpoint(LeaseStore store) {
    this.store = store;
  }

  /**
   * One held lease.
   *
   * @param account the key's account
   * @param session the key's session
   * @param holder who holds it
   * @param fence its fence
   * @param expiresInMs time left by the database clock, in milliseconds
   */
  public record HeldLease(
      String account, String session, String holder, long fence, long expiresInMs) {}

  /**
   * The listing.
   *
   * @param leases the held leases the caller may see, soonest expiry first
   * @param limit the most leases listed
   */
  public record HeldLeases(List<HeldLease> leases, int limit) {}

  /**
   * Lists the held leases.
   *
   * @param security the request's security context
   * @return the leases
   */
  @ReadOperation
  public HeldLeases leases(SecurityContext security) {
    List<HeldLease> leases =
        store.admin().heldLeases(callerOf(security), LIMIT).stream()
            .map(LeaseholdEndpoint::held)
            .toList();
    return new HeldLeases(leases, LIMIT);
  }

  private static HeldLease held(LeaseStatus s) {
    var owner = s.owner().orElseThrow();
    return new HeldLease(
        s.key().accountId(),
        s.key().sessionId(),
        owner.holder(),
        owner.fence(),
        s.remaining().toMillis());
  }

  static String callerOf(SecurityContext security) {
    Principal p = security == null ? null : security.getPrincipal();
    return p == null ? ANONYMOUS : p.getName();
  }
}
