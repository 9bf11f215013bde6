package io.leasehold.lease;

import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.internal.Arguments;
import java.util.Set;

/**
 * The application's decision whether an already authenticated caller may do something with a
 * session. The lease store asks it before every operation that takes a caller: acquire, renewal
 * (with the caller that acquired), release by token, status details, and the administrative
 * operations; a refused caller changes nothing and sees no run id. The lease only arbitrates
 * between executions that are already allowed: Leasehold does not authenticate anyone.
 *
 * <p>A lambda {@code (caller, key) -> ...} decides the ordinary operations and refuses every
 * administrative one; override {@link #permits(String, LeaseKey, Operation)} (or use {@link
 * #withAdministrators}) to allow those.
 *
 * <p>Implementations must be thread-safe and quick; an exception they throw propagates to the
 * caller of the operation (for a renewal, the lease is then lost).
 */
@FunctionalInterface
public interface AccessPolicy {
  /** What a caller asks to do. */
  enum Operation {
    /** Acquire the session's lease for a new run. */
    ACQUIRE(false),
    /** Renew a lease the caller acquired (asked at every renewal, so revoked access ends a run). */
    RENEW(false),
    /** Release a lease by its token ({@link LeaseStore#release}). */
    RELEASE(false),
    /**
     * Read the session's status with its owner's run id, fence and holder. A caller allowed {@link
     * #ACQUIRE} sees the same in the {@link AcquireResult.Busy} of a held key (CONTRACT C18), so
     * refusing this operation alone does not hide them (docs/security.md).
     */
    READ_STATUS(false),
    /** Administrative: end whichever run holds the session ({@link LeaseAdmin#forceRelease}). */
    FORCE_RELEASE(true),
    /** Administrative: delete long-dead lease rows ({@link LeaseAdmin#sweep}); the key is null. */
    SWEEP(true);

    private final boolean administrative;

    Operation(boolean administrative) {
      this.administrative = administrative;
    }

    /**
     * Whether this is an administrative operation (audited, refused by the ordinary rule).
     *
     * @return true for force release and sweep
     */
    public boolean administrative() {
      return administrative;
    }
  }

  /**
   * Whether {@code caller} may use {@code key}: the rule for the ordinary operations.
   *
   * @param caller the authenticated principal, as the application names it
   * @param key the session
   * @return true to let the operation proceed
   */
  boolean permits(String caller, LeaseKey key);

  /**
   * Whether {@code caller} may perform {@code operation} on {@code key}. The default applies {@link
   * #permits(String, LeaseKey)} to ordinary operations and refuses administrative ones.
   *
   * @param caller the authenticated principal
   * @param key the session, null for {@link Operation#SWEEP}
   * @param operation what the caller asks to do
   * @return true to let it proceed
   */
  default boolean permits(String caller, LeaseKey key, Operation operation) {
    return !operation.administrative() && permits(caller, key);
  }

  /**
   * This policy, plus the named administrators, who may perform every administrative operation.
   *
   * @param administrators the administrators' names
   * @return the combined policy
   */
  default AccessPolicy withAdministrators(Set<String> administrators) {
    Set<String> admins = Arguments.names(administrators, "administrators");
    AccessPolicy base = this;
    return new AccessPolicy() {
      @Override
      public boolean permits(String caller, LeaseKey key) {
        return base.permits(caller, key);
      }

      @Override
      public boolean permits(String caller, LeaseKey key, Operation operation) {
        return operation.administrative()
            ? admins.contains(caller)
            : base.permits(caller, key, operation);
      }
    };
  }

  /**
   * A policy that lets every caller do every ordinary operation, for applications that check access
   * before they reach the store (say so explicitly by choosing it). Administrative operations still
   * need {@link #withAdministrators}.
   *
   * @return the policy
   */
  static AccessPolicy allowAll() {
    return (caller, key) -> true;
  }

  /**
   * A policy that lets a caller use only sessions of the account with the caller's own name.
   *
   * @return the policy
   */
  static AccessPolicy callerOwnsAccount() {
    return (caller, key) -> key.accountId().equals(caller);
  }
}
