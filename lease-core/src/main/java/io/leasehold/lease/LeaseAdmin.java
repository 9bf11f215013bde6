package io.leasehold.lease;

import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.MarkReset;
import io.leasehold.fencing.internal.Arguments;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * An operator's operations on a store's lease table ({@link LeaseStore#admin()}): list the held
 * leases, check the database's failover settings, end a stuck run, sweep the rows of leases long
 * ended. Apart from the run's operations on purpose: none is for a hot path, the three that read or
 * end leases are each allowed only by their own operation of the store's {@link AccessPolicy}, and
 * the two that change rows are recorded in the audit table ({@code <table>_audit}).
 *
 * <p>Thread-safe. It uses the store's connections and timeouts, and works as long as the store is
 * open.
 */
public final class LeaseAdmin {
  /** Most rows {@link #heldLeases} returns. */
  public static final int MAX_LISTED = 10_000;

  /** Rows deleted per statement by {@link #sweep}. */
  public static final int SWEEP_BATCH = SweepStatements.BATCH;

  private static final Duration MAX_SWEEP_AGE = Duration.ofDays(36_500);

  private final ReadStatements reads;
  private final SweepStatements sweeps;
  private final LeaseReleases releases;
  private final StoreGate gate;

  LeaseAdmin(ReadStatements reads, SweepStatements sweeps, LeaseReleases releases, StoreGate gate) {
    this.reads = reads;
    this.sweeps = sweeps;
    this.releases = releases;
    this.gate = gate;
  }

  /**
   * The leases held now, across every process that uses this table, for an operator's view (the
   * Spring Boot starter's {@code leasehold} actuator endpoint lists them). Only keys the access
   * policy lets {@code caller} read ({@link AccessPolicy.Operation#READ_STATUS}) are returned: the
   * statuses name run ids and fences; the policy is applied before the limit. Reads up to {@value
   * #MAX_LISTED} live leases once.
   *
   * @param caller the authenticated principal, passed to the access policy for each key
   * @param limit the most leases to return, 1 to {@value #MAX_LISTED}; those expiring soonest come
   *     first
   * @return the held leases the caller may see, soonest expiry first
   * @throws IllegalArgumentException if the limit is out of range
   * @throws IllegalStateException if the store is closed
   * @throws LeaseStoreException if the database fails
   */
  public List<LeaseStatus> heldLeases(String caller, int limit) {
    if (limit < 1 || limit > MAX_LISTED) {
      throw new IllegalArgumentException(
          "limit must be between 1 and " + MAX_LISTED + ", was " + limit);
    }
    gate.ensureOpen();
    // The policy filters before the limit applies (issue 27): limiting the rows first let other
    // accounts' leases, expiring sooner, crowd a caller's own out of the answer.
    List<LeaseStatus> visible = new ArrayList<>();
    for (LeaseStatus s : reads.held(MAX_LISTED)) {
      if (gate.policy().permits(caller, s.key(), AccessPolicy.Operation.READ_STATUS)) {
        visible.add(s);
        if (visible.size() == limit) {
          break;
        }
      }
    }
    return List.copyOf(visible);
  }

  /**
   * Reads whether the database keeps leases and fences across a failover: fsync, synchronous commit
   * and synchronous standbys (see {@link FailoverSafety} and docs/high-availability.md). For a
   * start-up check or a health indicator; it reads settings and {@code pg_stat_replication}, which
   * shows standbys' sync state only to {@code pg_monitor}.
   *
   * @return the settings and what is unsafe in them
   * @throws IllegalStateException if the store is closed
   * @throws LeaseStoreException if the database fails
   */
  public FailoverSafety failoverSafety() {
    gate.ensureOpen();
    return reads.failoverSafety();
  }

  /**
   * Ends whichever run holds a session's live lease (a stuck run, a run that must stop now),
   * allowed only by the access policy's {@link AccessPolicy.Operation#FORCE_RELEASE} and recorded
   * in the audit table in the same transaction, whether or not a lease was live. The forced run
   * learns it at its next renewal and stops; the next acquire does not wait for its expiry.
   *
   * @param key the session
   * @param caller the operator, passed to the access policy and recorded
   * @param reason why, recorded (1 to {@value MarkReset#MAX_TEXT} characters)
   * @return {@link ReleaseResult.Outcome#RELEASED} if a live lease was ended, else {@code
   *     NOT_HELD}; either way with the database time
   * @throws AccessDeniedException if the policy refuses the caller; nothing changed, nothing
   *     recorded
   * @throws IllegalArgumentException if an argument is null or the reason is blank or too long
   * @throws IllegalStateException if the store is closed
   * @throws LeaseStoreException if the database fails; then nothing changed
   */
  public ReleaseResult forceRelease(LeaseKey key, String caller, String reason) {
    Arguments.required(key, "key");
    MarkReset.checkText("caller", caller);
    MarkReset.checkText("reason", reason);
    gate.ensureOpen();
    gate.authorize(
        caller, key, AccessPolicy.Operation.FORCE_RELEASE, "force the release of " + key);
    return releases.forceRelease(key, caller, reason);
  }

  /**
   * Deletes the rows of leases that ended at least {@code deadFor} ago (released, or expired and
   * never released), so the table does not grow with every session ever used. A maintenance task,
   * for an operator's schedule (daily, say), allowed only by the access policy's {@link
   * AccessPolicy.Operation#SWEEP} (with a null key), and recorded in the audit table after its last
   * batch.
   *
   * <p>{@code deadFor} must be at least {@link LeaseStore#MAX_TTL}, so that fences stay increasing:
   * the argument is written next to the statement and in docs/lease-store.md. A row that an acquire
   * takes over while the sweep runs is kept.
   *
   * <p>Walks the table once in primary-key order, {@value #SWEEP_BATCH} rows per statement, each
   * statement its own short transaction with the store's timeouts; rows created meanwhile behind
   * the walk wait for the next sweep.
   *
   * @param deadFor how long a lease must have ended, at least {@link LeaseStore#MAX_TTL}
   * @param caller the operator, passed to the access policy and recorded
   * @return the number of rows deleted
   * @throws AccessDeniedException if the policy refuses the caller; nothing changed
   * @throws IllegalArgumentException if {@code deadFor} is null, shorter than {@link
   *     LeaseStore#MAX_TTL} or longer than 100 years
   * @throws IllegalStateException if the store is closed
   * @throws LeaseStoreException if the database fails (batches already deleted stay deleted)
   */
  public long sweep(Duration deadFor, String caller) {
    if (deadFor == null
        || deadFor.compareTo(LeaseStore.MAX_TTL) < 0
        || deadFor.compareTo(MAX_SWEEP_AGE) > 0) {
      throw new IllegalArgumentException(
          "deadFor must be between "
              + LeaseStore.MAX_TTL
              + " (the longest statement timeout or takeover delay a"
              + " store may have) and "
              + MAX_SWEEP_AGE
              + ", was "
              + deadFor);
    }
    MarkReset.checkText("caller", caller);
    gate.ensureOpen();
    gate.authorize(caller, null, AccessPolicy.Operation.SWEEP, "sweep the lease table");
    return sweeps.sweep(deadFor, caller);
  }
}
