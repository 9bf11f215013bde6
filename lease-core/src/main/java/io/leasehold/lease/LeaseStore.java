package io.leasehold.lease;

import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.internal.Arguments;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import javax.sql.DataSource;

/**
 * The lease store: the one entry point of lease-core. It decides, with PostgreSQL as the single
 * authority, which run of a session may act right now, and hands that run a {@link Lease} whose
 * fencing token resources can check.
 *
 * <pre>{@code
 * LeaseStore store = LeaseStore.builder(dataSource)
 *     .accessPolicy(AccessPolicy.callerOwnsAccount())
 *     .ttl(Duration.ofSeconds(30))
 *     .build();
 * AcquireResult result = store.tryAcquire(LeaseKey.of("acct-7", "chat-1"), "acct-7");
 * if (result instanceof AcquireResult.Acquired acquired) {
 *   try (Lease lease = acquired.lease().keepAlive()) {
 *     fileStore.write(lease, "answer.md", bytes); // refused locally once the lease is lost
 *   }
 * } else if (result instanceof AcquireResult.Busy busy) {
 *   show(busy.status()); // who runs, until when
 * }
 * }</pre>
 *
 * <p>Every statement runs in its own short transaction with {@code lock_timeout} and {@code
 * statement_timeout} set, and every expiry decision uses the database clock. The store takes any
 * {@link DataSource}; it borrows a connection per statement and never holds one across a run's
 * work.
 *
 * <p>Threads: the store starts none until a lease is first {@linkplain Lease#keepAlive() kept} or
 * {@link #renewAll(Collection)} is called; then, unless a scheduler was given to the builder, it
 * starts a scheduler of up to three daemon threads named {@code leasehold-keeper-*} (one renews,
 * one watches local deadlines, one runs a second renewal statement at the same time when a batch
 * holds more than 10,000 leases), stopped by {@link #close()}.
 *
 * <p>Thread-safe.
 */
public final class LeaseStore implements AutoCloseable {
  /** Shortest TTL accepted for a lease that may be kept alive. */
  public static final Duration MIN_TTL = Duration.ofMillis(50);

  /**
   * Shortest TTL of a one-shot lease ({@link AcquireRequest#oneShot(Duration)}): the database's
   * timestamps have microseconds, but below a millisecond no client could act on the answer.
   */
  public static final Duration MIN_ONE_SHOT_TTL = Duration.ofMillis(1);

  /** Longest TTL and takeover delay accepted. */
  public static final Duration MAX_TTL = Duration.ofHours(24);

  /** Every part of the store, wired from the builder's options. */
  private final StoreParts parts;

  /** The shutdown hook of {@link LeaseStoreBuilder#closeOnJvmExit}, or null. */
  private final Thread closeAtExit;

  LeaseStore(LeaseStoreBuilder options) {
    this.parts = StoreParts.assemble(options);
    this.closeAtExit = options.closeOnJvmExit ? ExitHook.install(this) : null;
  }

  /**
   * Starts a builder.
   *
   * @param dataSource where the lease table lives; its user needs SELECT, INSERT and UPDATE on the
   *     table and USAGE on the sequence
   * @return the builder
   */
  public static LeaseStoreBuilder builder(DataSource dataSource) {
    return new LeaseStoreBuilder(dataSource);
  }

  // ------------------------------------------------------------------ acquire

  /**
   * Tries to acquire a lease with the store's defaults; see {@link #tryAcquire(AcquireRequest)}.
   *
   * @param key the session
   * @param caller the authenticated principal, passed to the access policy
   * @return the answer
   */
  public AcquireResult tryAcquire(LeaseKey key, String caller) {
    return tryAcquire(AcquireRequest.of(key, caller));
  }

  /**
   * Tries to acquire the lease of a session for a new run, in one atomic statement.
   *
   * <p>First the access policy is asked (a refusal throws and never touches the table). Then one
   * statement either grants this run the key (with a fresh run id and a fence higher than any
   * earlier run's) or changes nothing, because a live lease exists or an expired one is still
   * within the takeover delay; a refusal takes no row lock and draws no fence, and reports the
   * holder's row. Contention is an answer, never an error: when a contender holds the row's lock
   * longer than the lock timeout, the answer is {@link AcquireResult.Busy} too. The answer is
   * checked against the local deadline: if it arrived too late, the lease is released again and
   * {@link AcquireResult.TooLate} is returned.
   *
   * @param request what to acquire
   * @return {@link AcquireResult.Acquired}, {@link AcquireResult.Busy} or {@link
   *     AcquireResult.TooLate}
   * @throws AccessDeniedException if the access policy refuses the caller
   * @throws IllegalArgumentException if the request is null or its TTL is out of bounds
   * @throws IllegalStateException if the store is closed
   * @throws LeaseStoreException if the database fails or the statement exceeds its statement
   *     timeout; the lease may or may not have been granted (if it was, it expires)
   */
  public AcquireResult tryAcquire(AcquireRequest request) {
    Arguments.required(request, "request");
    ensureOpen();
    Duration leaseTtl = request.ttl().orElse(ttl());
    parts.timing().checkLeaseTtl(leaseTtl, request.oneShot());
    LeaseKey key = request.key();
    parts
        .gate()
        .authorize(request.caller(), key, AccessPolicy.Operation.ACQUIRE, "run session " + key);
    String holder = request.holder().isEmpty() ? parts.options().defaultHolder : request.holder();
    return parts.grants().acquire(request, leaseTtl, holder);
  }

  /**
   * Acquires the lease of a session, waiting at most {@code maxWait} while another run holds it:
   * "wait until this session is mine, at most 5 s".
   *
   * <p>Tries at once; after each {@code Busy} it pauses until the holder's lease ends, and tries
   * again. A release through this store, or one a {@link LeaseWatcher} hears of (other processes
   * whose stores publish, {@link LeaseStoreBuilder#notifyChanges}), wakes it at once; otherwise it
   * polls by the database clock, with a randomized backoff capped by {@link
   * LeaseStoreBuilder#waitPollCeiling} (docs/lease-store.md has the schedule). No thread spins.
   * Waiters are not queued: after a release they all try, and the database picks one.
   *
   * @param request what to acquire
   * @param maxWait how long to wait at most; {@link Duration#ZERO} tries once, like {@link
   *     #tryAcquire(AcquireRequest)}; at most one day
   * @return {@link AcquireResult.Acquired}; {@link AcquireResult.Busy} (the last refusal) if the
   *     wait ended first; or {@link AcquireResult.TooLate}, returned as soon as it happens
   * @throws InterruptedException if the thread is interrupted while it waits (a lease granted
   *     before that is returned, not lost: the interrupt stays set)
   * @throws AccessDeniedException if the access policy refuses the caller (on the first try)
   * @throws IllegalArgumentException if the request is null or {@code maxWait} is out of bounds
   * @throws IllegalStateException if the store is closed, or closes during the wait
   * @throws LeaseStoreException if a try fails in the database; the wait ends with it
   */
  public AcquireResult acquire(AcquireRequest request, Duration maxWait)
      throws InterruptedException {
    checkWait(request, maxWait);
    return parts.waits().await(request.key(), maxWait, () -> tryAcquire(request));
  }

  /**
   * {@link #acquire(AcquireRequest, Duration)} without a waiting thread: each try runs as a short
   * task on {@code executor} (it borrows a connection and sends one statement), and the pauses
   * between tries are timer tasks on the store's scheduler that only hand the next try to the
   * executor.
   *
   * <p>Cancelling the future ends the wait: no further try is made, and a lease granted by a try
   * that was in flight is released at once rather than left to block the key for a TTL.
   *
   * @param request what to acquire
   * @param maxWait how long to wait at most, at most one day
   * @param executor where the tries run (they block on JDBC for one statement each); not the
   *     store's scheduler
   * @return a future completed with the answer, as {@link #acquire(AcquireRequest, Duration)}
   *     returns it, or exceptionally with what a try threw ({@link AccessDeniedException}, {@link
   *     LeaseStoreException}, {@link IllegalStateException} if the store closed)
   * @throws IllegalArgumentException if an argument is null or {@code maxWait} is out of bounds
   * @throws IllegalStateException if the store is closed
   */
  public CompletableFuture<AcquireResult> acquireAsync(
      AcquireRequest request, Duration maxWait, Executor executor) {
    checkWait(request, maxWait);
    Arguments.required(executor, "executor");
    return parts
        .waits()
        .async(
            request.key(),
            maxWait,
            () -> tryAcquire(request),
            executor,
            parts.background().timer(),
            Lease::release);
  }

  /**
   * Acquires with the store's defaults, waiting at most {@code maxWait}; see {@link
   * #acquire(AcquireRequest, Duration)}.
   *
   * @param key the session
   * @param caller the authenticated principal, passed to the access policy
   * @param maxWait how long to wait at most
   * @return the answer
   * @throws InterruptedException if the thread is interrupted while it waits
   */
  public AcquireResult acquire(LeaseKey key, String caller, Duration maxWait)
      throws InterruptedException {
    return acquire(AcquireRequest.of(key, caller), maxWait);
  }

  private void checkWait(AcquireRequest request, Duration maxWait) {
    Arguments.required(request, "request");
    AcquireWaits.checkMaxWait(maxWait);
    ensureOpen();
    parts.timing().checkLeaseTtl(request.ttl().orElse(ttl()), request.oneShot());
  }

  /** How many acquires are waiting now. */
  int waiterCount() {
    return parts.waits().waiterCount();
  }

  /** A lease on {@code key} ended, as a watcher heard: waiters for it try again now. */
  void keyEnded(LeaseKey key) {
    parts.waits().ended(key);
  }

  /** Some store's changes were not published (a watcher heard "resync"): every waiter tries now. */
  void allKeysMayHaveEnded() {
    parts.waits().endedAll();
  }

  /** How many batches of changes could not be published to live-status listeners. */
  long publishFailures() {
    return parts.publisher() == null ? 0 : parts.publisher().failures();
  }

  // ------------------------------------------------------------------ status

  /**
   * The authoritative state of a key, read from the database, for a caller the access policy lets
   * read it: the status names the owner's run id and fence, from which anyone could build a token.
   *
   * @param key the key
   * @param caller the authenticated principal, passed to the access policy ({@link
   *     AccessPolicy.Operation#READ_STATUS})
   * @return its status at the database's current time
   * @throws AccessDeniedException if the policy refuses the caller; nothing was read
   * @throws IllegalStateException if the store is closed
   * @throws LeaseStoreException if the database fails
   */
  public LeaseStatus status(LeaseKey key, String caller) {
    Arguments.required(key, "key");
    ensureOpen();
    parts
        .gate()
        .authorize(caller, key, AccessPolicy.Operation.READ_STATUS, "read the status of " + key);
    return statusUnchecked(key);
  }

  /**
   * Reads the database clock through the lease table: a health probe, which fails if the database
   * is unreachable, the schema is missing, this store's user may not read the table, or the store's
   * fence sequence is not the one bound to the table (until it is confirmed, the probe checks that
   * too, as the first acquire does: see docs/lease-store.md).
   *
   * @return the database's current time
   * @throws IllegalStateException if the store is closed
   * @throws LeaseStoreException if the database fails, naming the repair for a missing schema or a
   *     fence sequence that is not the table's
   */
  public Instant databaseTime() {
    ensureOpen();
    parts.fenceSource().check();
    return parts.reads().databaseTime();
  }

  /** The status without the policy: for the store's own answers and its watchers. */
  LeaseStatus statusUnchecked(LeaseKey key) {
    ensureOpen();
    return parts.reads().status(key);
  }

  // ------------------------------------------------------------------ renew

  /**
   * Renews many leases of this store in as few statements as possible (one per 10,000 leases; with
   * more than one, two run at a time, the second on the store's scheduler). Each lease that the
   * database no longer counts as held is lost from then on; if a statement fails, every lease in it
   * is lost, and no further statement is started.
   *
   * @param leases leases acquired from this store
   * @return how many were renewed and which were lost
   * @throws IllegalArgumentException if a lease belongs to another store
   * @throws IllegalStateException if the store is closed
   */
  public BatchRenewal renewAll(Collection<Lease> leases) {
    Arguments.required(leases, "leases");
    for (Lease l : leases) {
      parts.own().ensureOwn(l);
    }
    ensureOpen();
    return parts
        .renewal()
        .renew(
            leases,
            false,
            leases.size() > ChunkedRenewal.CHUNK ? parts.background().helper() : null);
  }

  // ------------------------------------------------------------------ release

  /**
   * Releases the lease a token names, if that run still holds it. For runs that lost their {@link
   * Lease} handle (a restarted front end, say); a run that has its handle calls {@link
   * Lease#release()}. A stale or forged token changes nothing and yields {@link
   * ReleaseResult.Outcome#NOT_HELD}.
   *
   * @param token the run's token
   * @param caller the authenticated principal, passed to the access policy ({@link
   *     AccessPolicy.Operation#RELEASE})
   * @return what the release did
   * @throws AccessDeniedException if the policy refuses the caller; nothing changed
   * @throws IllegalStateException if the store is closed
   * @throws LeaseStoreException if the database fails
   */
  public ReleaseResult release(FencingToken token, String caller) {
    Arguments.required(token, "token");
    ensureOpen();
    LeaseKey key = token.key();
    parts
        .gate()
        .authorize(caller, key, AccessPolicy.Operation.RELEASE, "release a lease of " + key);
    return parts.releases().release(token);
  }

  /**
   * The operator's operations on this store's table: held leases, forced release, sweep.
   *
   * @return the store's admin view; the access policy decides who may use each operation
   */
  public LeaseAdmin admin() {
    return parts.admin();
  }

  // ------------------------------------------------------------------ run exclusive

  /**
   * The common case in one call: acquire, keep alive, run the work on this thread, release.
   *
   * <p>If the lease is lost while the work runs, this thread is interrupted (the cancellation
   * signal: blocking calls throw {@link InterruptedException}, loops should check {@link
   * Thread#isInterrupted()} or {@link Lease#isLost()}), every later fenced operation with the lease
   * is refused, and the outcome is {@link RunOutcome.Lost} whatever the work returned. The
   * interrupt this call caused is cleared before it returns.
   *
   * @param request what to acquire
   * @param work the work; it receives the lease
   * @param <T> the work's result
   * @return how the run ended
   * @throws AccessDeniedException if the access policy refuses the caller
   * @throws LeaseWorkException if the work threw a checked exception while the lease was held
   * @throws RuntimeException what the work threw, unchecked, while the lease was held
   */
  public <T> RunOutcome<T> runExclusive(AcquireRequest request, LeaseWork<T> work) {
    Arguments.required(work, "work");
    AcquireResult result = tryAcquire(request);
    if (!(result instanceof AcquireResult.Acquired acquired)) {
      return new RunOutcome.NotAcquired<>(result);
    }
    return ExclusiveRun.run(acquired.lease(), work);
  }

  // ------------------------------------------------------------------ lifecycle

  /**
   * Closes the store: every lease it handed out and that is still held, kept alive or not, is
   * declared lost ({@link LeaseLoss.Reason#STORE_CLOSED}), so its work stops and its handle refuses
   * fenced operations, and then released in the database, so the next run does not wait for the
   * TTL; then the store's own scheduler, if it made one, is stopped. Idempotent, and safe to call
   * from a loss listener. Afterwards every method throws {@link IllegalStateException}, except
   * {@link Lease#release()}, which answers {@code NOT_HELD}.
   */
  @Override
  public void close() {
    if (!parts.gate().closed().compareAndSet(false, true)) {
      return;
    }
    // Waiters try now and learn that the store closed; their pending timer tasks are cancelled
    // before the scheduler stops.
    parts.waits().endedAll();
    Set<Lease> ending = new LinkedHashSet<>(parts.background().stopAndDrain());
    ending.addAll(parts.grants().handedOut().drain());
    for (Lease lease : ending) {
      if (!lease.isEnded()) {
        lease.markLost(LeaseLoss.Reason.STORE_CLOSED, null);
        parts.releases().releaseQuietly(lease);
      }
    }
    parts.background().shutdown();
    if (parts.publisher() != null) {
      // After the releases above, so that watchers hear of them.
      parts.publisher().close();
    }
    ExitHook.remove(closeAtExit);
  }

  /**
   * Whether {@link #close()} was called.
   *
   * @return true once closed
   */
  public boolean isClosed() {
    return parts.gate().closed().get();
  }

  /**
   * The default TTL.
   *
   * @return the TTL
   */
  public Duration ttl() {
    return parts.options().ttl;
  }

  /**
   * The keeper's renew interval.
   *
   * @return the interval
   */
  public Duration renewInterval() {
    return parts.timing().renewInterval();
  }

  /**
   * The schema names in use.
   *
   * @return the schema
   */
  public LeaseSchema schema() {
    return parts.options().schema;
  }

  /**
   * How many leases the keeper currently renews.
   *
   * @return the count
   */
  public int keptLeaseCount() {
    return parts.background().size();
  }

  /**
   * How long ago the keeper's last renewal round succeeded: a growing value means kept leases are
   * about to be lost (the database is slow or unreachable). A round with nothing to renew counts as
   * a success, so the lag stays small while the store is idle.
   *
   * @return the time since the last successful round (since the keeper started, before its first
   *     round), by the store's ticker; empty until the first lease is kept
   */
  public Optional<Duration> keeperLag() {
    return parts.background().sinceLastRound();
  }

  /**
   * Adds a listener for what this store does (acquire outcomes and latency, renewal rounds, lost
   * leases), for metrics and logs.
   *
   * @param listener the listener; called on the threads that do the work
   * @return closing it removes the listener
   * @throws IllegalArgumentException if null
   */
  public AutoCloseable addListener(LeaseStoreListener listener) {
    Arguments.required(listener, "listener");
    return parts.listeners().add(listener);
  }

  // ------------------------------------------------------------------ internals

  /** The monotonic clock of local deadlines, for the store's watchers. */
  Ticker ticker() {
    return parts.options().ticker;
  }

  private void ensureOpen() {
    parts.gate().ensureOpen();
  }
}
