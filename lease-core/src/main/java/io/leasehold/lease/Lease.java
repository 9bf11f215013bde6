package io.leasehold.lease;

import io.leasehold.fencing.Fenced;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.LeaseLostException;
import io.leasehold.fencing.internal.Arguments;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/**
 * A run's handle on the lease it acquired: its fencing token, its local deadline, and the signal
 * that fires when the lease is lost.
 *
 * <p>Pass the lease itself to fenced resources: {@link #token()} refuses with {@link
 * LeaseLostException} once the lease is known to be lost or its local deadline has passed, so a
 * lost run's operation never reaches the resource. The local deadline is measured on the store's
 * monotonic {@link Ticker}, from the moment before the acquire (or the last successful renewal) was
 * sent, plus the TTL, minus the store's safety margin.
 *
 * <p>A lease is renewed in the background once {@link #keepAlive()} hands it to the store's keeper,
 * or by calling {@link #renew()}. It ends either voluntarily, by {@link #release()} or {@link
 * #close()} (idempotent; the handle is single-use afterwards), or involuntarily, when it is lost:
 * then loss listeners are called and {@link #whenLost()} completes.
 *
 * <p>Thread-safe.
 */
public final class Lease implements Fenced, AutoCloseable {
  private static final System.Logger LOG = System.getLogger(Lease.class.getName());
  private static final Object RELEASED = new Object();

  private final LeaseControl control;

  /** Replaced, signed for the new window, on each renewal. */
  private volatile FencingToken token;

  private final String caller;
  private final String holder;

  /** The length of each renewal; changed only by {@link #renew(Duration)}. */
  private volatile Duration ttl;

  /** The ttl of the renewal (or acquire) that set the deadline; guarded by {@code this}. */
  private Duration deadlineTtl;

  private final boolean oneShot;
  private volatile boolean kept;

  /** Serializes explicit renewals, so their confirmations arrive in order. */
  private final Object renewals = new Object();

  private final Instant acquiredAt;
  private volatile Instant expiresAt;
  private volatile long deadlineNanos;

  /** Null while live; then either {@link #RELEASED} or the {@link LeaseLoss}. */
  private final AtomicReference<Object> end = new AtomicReference<>();

  private final CompletableFuture<LeaseLoss> lost = new CompletableFuture<>();
  private final CopyOnWriteArrayList<Consumer<LeaseLoss>> listeners = new CopyOnWriteArrayList<>();

  /**
   * A lease as the database granted it.
   *
   * @param request what the run asked for: its caller, and whether the lease is one-shot
   * @param holder the holder description recorded, the store's default if the request gave none
   * @param ttl the TTL granted, the store's if the request gave none
   * @param token the signed token of the grant
   * @param granted the database times of the grant
   * @param deadlineNanos the local deadline, on the store's ticker
   */
  Lease(
      LeaseControl control,
      AcquireRequest request,
      String holder,
      Duration ttl,
      FencingToken token,
      AcquireStatements.Granted granted,
      long deadlineNanos) {
    this.control = control;
    this.caller = request.caller();
    this.oneShot = request.oneShot();
    this.holder = holder;
    this.ttl = ttl;
    this.deadlineTtl = ttl;
    this.token = token;
    this.acquiredAt = granted.acquiredAt();
    this.expiresAt = granted.expiresAt();
    this.deadlineNanos = deadlineNanos;
  }

  /**
   * The token to present to resources, if the lease is still believed held. A signed token is valid
   * until the lease's current expiry and is replaced by a fresh one on each renewal, so present the
   * lease (or call this at each write), rather than keep a token.
   *
   * @return the fencing token
   * @throws LeaseLostException if the lease was released, lost, or its local deadline passed
   */
  @Override
  public FencingToken token() {
    checkDeadline();
    Object e = end.get();
    if (e == RELEASED) {
      throw new LeaseLostException(token, "released by its run");
    }
    if (e instanceof LeaseLoss loss) {
      throw new LeaseLostException(token, loss.toString());
    }
    return token;
  }

  /**
   * The token without the local check, for logs, status screens and diagnostics. Resources must be
   * given the lease (or {@link #token()}), not this.
   *
   * @return the token this lease was granted
   */
  public FencingToken identity() {
    return token;
  }

  /**
   * The lease key.
   *
   * @return the key
   */
  public LeaseKey key() {
    return token.key();
  }

  /**
   * The fence assigned at acquisition.
   *
   * @return the fence
   */
  public long fence() {
    return token.fence();
  }

  /**
   * This run's id.
   *
   * @return the run id
   */
  public UUID runId() {
    return token.runId();
  }

  /**
   * The holder description recorded with the lease.
   *
   * @return the description
   */
  public String holder() {
    return holder;
  }

  /**
   * The TTL each acquire and renewal grants.
   *
   * @return the TTL
   */
  public Duration ttl() {
    return ttl;
  }

  /**
   * Database time of the acquisition.
   *
   * @return the instant
   */
  public Instant acquiredAt() {
    return acquiredAt;
  }

  /**
   * Database expiry as of the last confirmed acquire or renewal.
   *
   * @return the instant
   */
  public Instant expiresAt() {
    return expiresAt;
  }

  /**
   * Time left before the local deadline, by the store's ticker.
   *
   * @return the remaining time, negative once passed
   */
  public Duration localTimeLeft() {
    return Duration.ofNanos(deadlineNanos - control.ticker().read());
  }

  /**
   * Whether the lease is known to be lost (or released, or past its local deadline).
   *
   * @return true if fenced operations are now refused
   */
  public boolean isLost() {
    checkDeadline();
    return end.get() != null;
  }

  /**
   * Why the lease was lost, if it was lost involuntarily.
   *
   * @return the loss, empty while held or after a release
   */
  public Optional<LeaseLoss> loss() {
    checkDeadline();
    return end.get() instanceof LeaseLoss l ? Optional.of(l) : Optional.empty();
  }

  /**
   * A future completed when the lease is lost involuntarily; it never completes if the run releases
   * the lease. Each call returns a new copy, so completing it does not affect the lease.
   *
   * @return the future
   */
  public CompletableFuture<LeaseLoss> whenLost() {
    return lost.copy();
  }

  /**
   * Registers a listener for involuntary loss. It is called once, on the thread that detects the
   * loss (the keeper's, or a thread calling {@link #token()} past the deadline), or at once on this
   * thread if the lease is already lost. Exceptions it throws are logged and ignored, so a listener
   * cannot break renewal.
   *
   * @param listener the listener
   * @return an action that removes the listener again
   */
  public Runnable onLost(Consumer<LeaseLoss> listener) {
    Arguments.required(listener, "listener");
    listeners.add(listener);
    if (end.get() instanceof LeaseLoss loss && listeners.remove(listener)) {
      notify(listener, loss);
    }
    return () -> listeners.remove(listener);
  }

  /**
   * Hands the lease to the store's keeper, which renews it with every other kept lease in one
   * statement per renew interval and declares it lost when a renewal fails or the local deadline
   * passes.
   *
   * <p>Idempotent: calling it again on a kept lease changes nothing. On a lease already lost it
   * does nothing either (the loss was reported to the listeners, and {@link #token()} throws).
   *
   * @return this lease
   * @throws IllegalStateException if the lease was released (keeping it alive is then a mistake:
   *     acquire a new lease), or the store is closed
   */
  public Lease keepAlive() {
    if (end.get() == RELEASED) {
      throw new IllegalStateException(
          "lease " + token + " was released: it cannot be kept alive; acquire a new lease");
    }
    if (oneShot) {
      throw new IllegalStateException(
          "lease "
              + token
              + " is one-shot (AcquireRequest.oneShot): it is never kept alive. Extend it"
              + " with renew(Duration), or acquire without oneShot to keep it alive");
    }
    kept = true;
    control.keep(this);
    return this;
  }

  /**
   * Whether this lease was acquired one-shot ({@link AcquireRequest#oneShot(Duration)}): never kept
   * alive, extended only by {@link #renew(Duration)}.
   *
   * @return true if one-shot
   */
  public boolean isOneShot() {
    return oneShot;
  }

  /**
   * Renews the lease now. If the database no longer counts this run as the holder, or the statement
   * fails, the lease is lost from then on.
   *
   * @return what the renewal did
   * @throws LeaseStoreException if the statement failed (the lease is then lost)
   * @throws IllegalStateException if the store is closed
   */
  public RenewResult renew() {
    return control.renew(this, Optional.empty());
  }

  /**
   * Renews the lease now to a new length: it then expires at the database's now plus {@code ttl}
   * (shorter or longer than before), its local deadline follows, and later renewals use that
   * length. For leases that are not kept alive (a one-shot lease, or one the run renews itself):
   * ShedLock's {@code extend}, a job that learns it needs longer. A one-shot lease accepts any
   * length from {@link LeaseStore#MIN_ONE_SHOT_TTL}, others the store's renewable range. If the
   * database no longer counts this run as the holder, or the statement fails, the lease is lost
   * from then on.
   *
   * @param ttl the new length, from the database's now
   * @return what the renewal did
   * @throws IllegalArgumentException if {@code ttl} is null or out of the store's bounds; nothing
   *     changed
   * @throws IllegalStateException if the lease is kept alive (its keeper renews it with its own
   *     length), or the store is closed
   * @throws LeaseStoreException if the statement failed (the lease is then lost)
   */
  public RenewResult renew(Duration ttl) {
    Arguments.required(ttl, "ttl");
    if (kept) {
      throw new IllegalStateException(
          "lease "
              + token
              + " is kept alive: its keeper renews it with its own length. Use"
              + " renew(Duration) on leases the run renews itself");
    }
    synchronized (renewals) {
      return control.renew(this, Optional.of(ttl));
    }
  }

  /**
   * Releases the lease but keeps the key unavailable until {@code until} in database time, in one
   * statement (ShedLock's {@code lockAtLeastFor}): the run's hold ends now (its token is refused
   * locally, it cannot renew), and no run acquires the key before {@code until}. The next run still
   * draws a higher fence. An instant already past releases as {@link #release()} does. Meanwhile
   * the key's status is {@link LeaseStatus.State#DRAINING} with {@code acquirableAt} {@code until}.
   * Idempotent as {@link #release()} is.
   *
   * <p>The hold ends no later than the lease would have: {@code until} may not lie after {@link
   * #expiresAt()}. A later one would extend the lease without a renewal, past the lengths the store
   * accepts ({@link LeaseStore#MAX_TTL}) and without asking the access policy, which every renewal
   * does. To hold the key longer, renew the lease to a longer length first.
   *
   * @param until when the key may be acquired again, in database time (for instance {@link
   *     #acquiredAt()} plus the job's minimum length), at most {@link #expiresAt()}
   * @return what the release did
   * @throws IllegalArgumentException if {@code until} is null or after {@link #expiresAt()};
   *     nothing is released
   * @throws LeaseStoreException if the statement failed (the lease then expires by itself)
   */
  public ReleaseResult releaseHolding(Instant until) {
    Arguments.required(until, "until");
    Instant expiry = expiresAt;
    if (until.isAfter(expiry)) {
      throw new IllegalArgumentException(
          "cannot hold "
              + token.key()
              + " until "
              + until
              + ": that is after the lease's expiry "
              + expiry
              + ", and a release never holds a key longer than its lease did. Hold it until expiresAt() at"
              + " the latest, or renew(Duration) the lease to a longer length first; nothing was released");
    }
    return release(Optional.of(until));
  }

  /**
   * Releases the lease; idempotent. A lease that was lost, or taken over by another run, is not
   * touched in the database: the result says {@link ReleaseResult.Outcome#NOT_HELD}.
   *
   * @return what the release did
   * @throws LeaseStoreException if the statement failed (the lease then expires by itself)
   */
  public ReleaseResult release() {
    return release(Optional.empty());
  }

  private ReleaseResult release(Optional<Instant> holdUntil) {
    if (!end.compareAndSet(null, RELEASED)) {
      if (end.get() == RELEASED) {
        return new ReleaseResult(ReleaseResult.Outcome.NOT_HELD, Optional.empty());
      }
    }
    control.forget(this);
    return control.release(this, holdUntil);
  }

  /** Releases the lease (see {@link #release()}), reporting nothing; idempotent. */
  @Override
  public void close() {
    release();
  }

  // --- used by the store and its keeper

  boolean isEnded() {
    return end.get() != null;
  }

  /** The length of the next renewal. */
  void setTtl(Duration ttl) {
    this.ttl = ttl;
  }

  void confirmRenewal(long sentAtNanos, Instant newExpiresAt, Duration ttlUsed) {
    long newDeadline = control.deadlineFrom(sentAtNanos, ttlUsed, oneShot);
    synchronized (this) {
      // A renewal to a new length (renew(Duration), serialized and never raced by a keeper) sets
      // the deadline, earlier or later; of renewals of one length the latest sent wins.
      if (!ttlUsed.equals(deadlineTtl) || newDeadline - deadlineNanos > 0) {
        deadlineTtl = ttlUsed;
        deadlineNanos = newDeadline;
        expiresAt = newExpiresAt;
        token = control.reissue(token, acquiredAt, newExpiresAt);
      }
    }
  }

  void checkDeadline() {
    if (end.get() == null && control.ticker().read() - deadlineNanos >= 0) {
      markLost(LeaseLoss.Reason.DEADLINE_PASSED, null);
    }
  }

  void markLost(LeaseLoss.Reason reason, Throwable cause) {
    LeaseLoss loss = new LeaseLoss(token, reason, Optional.ofNullable(cause));
    if (!end.compareAndSet(null, loss)) {
      return;
    }
    control.forget(this);
    control.lost(loss);
    LOG.log(Level.DEBUG, () -> "lease " + token + " lost: " + loss);
    for (Consumer<LeaseLoss> listener : listeners) {
      if (listeners.remove(listener)) {
        notify(listener, loss);
      }
    }
    lost.complete(loss);
  }

  private void notify(Consumer<LeaseLoss> listener, LeaseLoss loss) {
    try {
      listener.accept(loss);
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "lease loss listener failed for " + token, e);
    }
  }

  LeaseControl control() {
    return control;
  }

  /** The caller that acquired the lease: the access policy is asked for it at every renewal. */
  String caller() {
    return caller;
  }

  @Override
  public String toString() {
    Object e = end.get();
    String state = e == null ? "held" : e == RELEASED ? "released" : "lost: " + e;
    return "Lease["
        + token.key()
        + ", fence="
        + token.fence()
        + ", run="
        + token.runId()
        + ", "
        + state
        + "]";
  }
}
