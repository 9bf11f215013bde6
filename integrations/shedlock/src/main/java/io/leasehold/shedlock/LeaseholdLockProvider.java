package io.leasehold.shedlock;

import io.leasehold.fencing.LeaseKey;
import io.leasehold.lease.AcquireRequest;
import io.leasehold.lease.AcquireResult;
import io.leasehold.lease.LeaseStore;
import java.util.Optional;
import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;

/**
 * A ShedLock {@link ExtensibleLockProvider} backed by a Leasehold {@link LeaseStore}: each lock is
 * a one-shot lease of the key {@code (account, lock name)}, so it lasts {@code lockAtMostFor} in
 * database time (as ShedLock's {@code usingDbTime()}), and every lock carries a fencing token.
 *
 * <pre>{@code
 * @Bean
 * LockProvider lockProvider(LeaseStore store) {
 *   return LeaseholdLockProvider.of(store, "scheduler");
 * }
 * }</pre>
 *
 * <p>What a lock adds over ShedLock's own providers: {@link FencedLock#token()}, a fence that
 * strictly increases for each lock name. A job that passes its lock to Leasehold guards ({@code
 * files.write(lock, ...)}) cannot write once a newer holder has, even if it was paused past {@code
 * lockAtMostFor} and its lock was taken over, which no timeout alone prevents.
 *
 * <ul>
 *   <li>{@code lockAtMostFor} is the lease's TTL, from 1 ms to 24 h; the lease is never kept alive
 *       ({@link AcquireRequest#oneShot}).
 *   <li>{@code lockAtLeastFor} is kept by the database: unlocking releases the lease holding the
 *       key until its start plus that length ({@link io.leasehold.lease.Lease#releaseHolding}), so
 *       it holds even if the process dies.
 *   <li>{@code extend} renews the lease to the new {@code lockAtMostFor} from the database's now
 *       ({@link io.leasehold.lease.Lease#renew(java.time.Duration)}); the old lock is then invalid,
 *       as ShedLock requires. Its lengths are checked as {@code lock} checks them, and a refused
 *       extend leaves the lock as it was.
 * </ul>
 *
 * <p>The store's access policy is asked with {@code caller} for every lock, and its takeover delay
 * keeps a lock that expired unavailable that much longer (zero by default). Thread-safe.
 */
public final class LeaseholdLockProvider implements ExtensibleLockProvider {
  private final LeaseStore store;
  private final String account;
  private final String caller;

  private LeaseholdLockProvider(LeaseStore store, String account, String caller) {
    this.store = store;
    this.account = account;
    this.caller = caller;
  }

  /**
   * A provider whose locks are keys of {@code account}, asked of the access policy as {@code
   * account} too.
   *
   * @param store the lease store
   * @param account the lease keys' account id (a lock name is the session id)
   * @return the provider
   * @throws IllegalArgumentException if an argument is null or the account is not a valid key part
   */
  public static LeaseholdLockProvider of(LeaseStore store, String account) {
    return of(store, account, account);
  }

  /**
   * A provider whose locks are keys of {@code account}, asked of the access policy as {@code
   * caller}.
   *
   * @param store the lease store
   * @param account the lease keys' account id
   * @param caller the principal the store's access policy is asked about
   * @return the provider
   * @throws IllegalArgumentException if an argument is null or not valid
   */
  public static LeaseholdLockProvider of(LeaseStore store, String account, String caller) {
    if (store == null || account == null || caller == null || caller.isBlank()) {
      throw new IllegalArgumentException("store, account and caller must not be null or blank");
    }
    LeaseKey.of(account, "check"); // the account must be a valid key part
    return new LeaseholdLockProvider(store, account, caller);
  }

  /**
   * Takes the lock if nobody holds it.
   *
   * @param config ShedLock's configuration: the name and the two lengths
   * @return the lock, or empty if another holder has it (or held it at least until now)
   * @throws IllegalArgumentException if the name is not a valid key part, {@code lockAtMostFor} is
   *     outside 1 ms to 24 h, or {@code lockAtLeastFor} outside zero to {@code lockAtMostFor}
   * @throws io.leasehold.lease.AccessDeniedException if the access policy refuses the caller
   * @throws io.leasehold.lease.LeaseStoreException if the database fails
   */
  @Override
  public Optional<SimpleLock> lock(LockConfiguration config) {
    LeaseKey key = LeaseKey.of(account, config.getName());
    FencedLock.checkLengths(
        config.getName(), config.getLockAtMostFor(), config.getLockAtLeastFor());
    AcquireResult result =
        store.tryAcquire(AcquireRequest.of(key, caller).oneShot(config.getLockAtMostFor()));
    if (result instanceof AcquireResult.Acquired acquired) {
      return Optional.of(FencedLock.taken(acquired.lease(), config.getLockAtLeastFor()));
    }
    return Optional.empty();
  }

  @Override
  public String toString() {
    return "LeaseholdLockProvider[account=" + account + ", caller=" + caller + "]";
  }
}
