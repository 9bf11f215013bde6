package io.leasehold.lease;

import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.internal.Arguments;
import java.time.Duration;
import java.util.Optional;

/**
 * What a caller asks of {@link LeaseStore#tryAcquire(AcquireRequest)}.
 *
 * @param key the session to run
 * @param caller the authenticated principal, passed to the store's {@link AccessPolicy}
 * @param holder a description of the executor for status screens and operators (device, process),
 *     at most {@value #MAX_HOLDER_LENGTH} characters; empty for the store's default
 * @param ttl the lease's time to live, or empty for the store's default
 * @param oneShot true for a lease that is never kept alive ({@link #oneShot(Duration)}): its TTL
 *     may be as short as {@link LeaseStore#MIN_ONE_SHOT_TTL}, below what renewal needs
 */
public record AcquireRequest(
    LeaseKey key, String caller, String holder, Optional<Duration> ttl, boolean oneShot) {
  /** Longest accepted holder description. */
  public static final int MAX_HOLDER_LENGTH = 200;

  /**
   * Validates the components.
   *
   * @throws IllegalArgumentException if a component is null, the caller is blank, or the holder is
   *     too long or has control characters
   */
  public AcquireRequest {
    Arguments.required(key, "key");
    if (caller == null || caller.isBlank()) {
      throw new IllegalArgumentException("caller must not be null or blank");
    }
    if (holder == null) {
      throw new IllegalArgumentException("holder must not be null (use \"\" for the default)");
    }
    if (holder.length() > MAX_HOLDER_LENGTH) {
      throw new IllegalArgumentException(
          "holder is " + holder.length() + " characters long; at most " + MAX_HOLDER_LENGTH);
    }
    for (int i = 0; i < holder.length(); i++) {
      // A loop, not a stream: every acquire checks its holder, refusals included.
      if (Character.isISOControl(holder.charAt(i))) {
        throw new IllegalArgumentException("holder must not contain control characters");
      }
    }
    if (ttl == null) {
      throw new IllegalArgumentException("ttl must not be null (use Optional.empty())");
    }
    if (oneShot && ttl.isEmpty()) {
      throw new IllegalArgumentException("a one-shot request needs its own ttl");
    }
  }

  /**
   * A request that may be kept alive, as before one-shot requests existed.
   *
   * @param key the session
   * @param caller the authenticated principal
   * @param holder the holder description, empty for the store's default
   * @param ttl the TTL, or empty for the store's default
   */
  public AcquireRequest(LeaseKey key, String caller, String holder, Optional<Duration> ttl) {
    this(key, caller, holder, ttl, false);
  }

  /**
   * A request with the store's default holder and TTL.
   *
   * @param key the session
   * @param caller the authenticated principal
   * @return the request
   */
  public static AcquireRequest of(LeaseKey key, String caller) {
    return new AcquireRequest(key, caller, "", Optional.empty(), false);
  }

  /**
   * This request with another holder description.
   *
   * @param holder the description
   * @return a new request
   */
  public AcquireRequest withHolder(String holder) {
    return new AcquireRequest(key, caller, holder, ttl, oneShot);
  }

  /**
   * This request with another TTL.
   *
   * @param ttl the time to live
   * @return a new request
   */
  public AcquireRequest withTtl(Duration ttl) {
    Arguments.required(ttl, "ttl");
    return new AcquireRequest(key, caller, holder, Optional.of(ttl), oneShot);
  }

  /**
   * This request as a one-shot lease of exactly {@code ttl}: a lease that is never kept alive (a
   * scheduled job's lock, as ShedLock takes one), so its TTL need not leave room for renewals. It
   * may be from {@link LeaseStore#MIN_ONE_SHOT_TTL} to {@link LeaseStore#MAX_TTL}; the store
   * refuses anything else with a clear error, never rounding it. A one-shot lease is acquired even
   * when its TTL ends before the answer arrives (it is then known lost at once, and its token
   * refused locally); {@link Lease#keepAlive()} refuses it, while {@link Lease#renew(Duration)}
   * extends it explicitly.
   *
   * @param ttl the lease's exact length
   * @return a new request
   */
  public AcquireRequest oneShot(Duration ttl) {
    Arguments.required(ttl, "ttl");
    return new AcquireRequest(key, caller, holder, Optional.of(ttl), true);
  }
}
