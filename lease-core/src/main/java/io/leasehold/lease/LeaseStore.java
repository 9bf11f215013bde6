package io.leasehold.lease;

import io.leasehold.fencing.TokenVerifier;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.MarkReset;
import io.leasehold.fencing.SigningKey;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
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
 * <p>Threads: the store starts none until a lease is first {@linkplain Lease#keepAlive() kept}
 * or {@link #renewAll(Collection)} is called; then, unless a scheduler was given to the builder,
 * it starts a scheduler of up to three daemon threads named {@code leasehold-keeper-*} (one
 * renews, one watches local deadlines, one runs a second renewal statement at the same time when
 * a batch holds more than {@value #RENEW_CHUNK} leases), stopped by {@link #close()}.
 *
 * <p>Thread-safe.
 */
public final class LeaseStore implements AutoCloseable {
  /** Shortest TTL accepted. */
  public static final Duration MIN_TTL = Duration.ofMillis(50);
  /** Longest TTL and takeover delay accepted. */
  public static final Duration MAX_TTL = Duration.ofHours(24);
  /** Leases renewed per statement; more are renewed in several statements. */
  static final int RENEW_CHUNK = 10_000;

  /** Rows deleted per statement by {@link #sweep}. */
  static final int SWEEP_BATCH = 10_000;

  private static final Duration MAX_SWEEP_AGE = Duration.ofDays(36_500);

  private final DataSource dataSource;
  private final LeaseSchema schema;
  private final Duration ttl;
  private final Duration renewInterval;
  private final Duration safetyMargin;
  private final Duration lockTimeout;
  private final Duration statementTimeout;
  private final Duration takeoverDelay;
  private final AccessPolicy accessPolicy;
  private final Ticker ticker;
  private final String defaultHolder;
  private final SigningKey signingKey;
  private final LeaseSql sql;
  private final Keeper keeper;
  private final AtomicBoolean closed = new AtomicBoolean();
  /** Every lease handed out and not yet ended: close() ends them all, kept or not. */
  private final java.util.Set<Lease> live = java.util.concurrent.ConcurrentHashMap.newKeySet();
  private final AtomicInteger acquiresSincePrune = new AtomicInteger();

  private LeaseStore(Builder b) {
    this.dataSource = b.dataSource;
    this.schema = b.schema;
    this.ttl = b.ttl;
    this.renewInterval = b.renewInterval;
    this.safetyMargin = b.safetyMargin;
    this.lockTimeout = b.lockTimeout;
    this.statementTimeout = b.statementTimeout;
    this.takeoverDelay = b.takeoverDelay;
    this.accessPolicy = b.accessPolicy;
    this.ticker = b.ticker;
    this.defaultHolder = b.defaultHolder;
    this.signingKey = b.signingKey;
    this.sql = new LeaseSql(schema, lockTimeout, statementTimeout, b.notifyChanges);
    this.keeper = new Keeper(this, b.scheduler, renewInterval);
  }

  /**
   * Starts a builder.
   *
   * @param dataSource where the lease table lives; its user needs SELECT, INSERT and UPDATE on
   *     the table and USAGE on the sequence
   * @return the builder
   */
  public static Builder builder(DataSource dataSource) {
    return new Builder(dataSource);
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
   * conditional UPSERT either grants this run the key (with a fresh run id and a fence higher than
   * any earlier run's) or changes nothing, because a live lease exists or an expired one is still
   * within the takeover delay. The answer is checked against the local deadline: if it arrived
   * too late, the lease is released again and {@link AcquireResult.TooLate} is returned.
   *
   * @param request what to acquire
   * @return {@link AcquireResult.Acquired}, {@link AcquireResult.Busy} or {@link
   *     AcquireResult.TooLate}
   * @throws AccessDeniedException if the access policy refuses the caller
   * @throws IllegalArgumentException if the request is null or its TTL is out of bounds
   * @throws IllegalStateException if the store is closed
   * @throws LeaseStoreException if the database fails; the lease may or may not have been granted
   *     (if it was, it expires)
   */
  public AcquireResult tryAcquire(AcquireRequest request) {
    if (request == null) {
      throw new IllegalArgumentException("request must not be null");
    }
    ensureOpen();
    Duration leaseTtl = request.ttl().orElse(ttl);
    checkLeaseTtl(leaseTtl);
    LeaseKey key = request.key();
    if (!accessPolicy.permits(request.caller(), key, AccessPolicy.Operation.ACQUIRE)) {
      throw new AccessDeniedException(request.caller(), key);
    }
    String holder = request.holder().isEmpty() ? defaultHolder : request.holder();
    UUID runId = UUID.randomUUID();

    long sentAt = ticker.read();
    Granted granted =
        execute(
            sql.acquire,
            () -> "acquire " + key,
            ps -> {
              ps.setString(1, key.accountId());
              ps.setString(2, key.sessionId());
              ps.setObject(3, runId);
              ps.setString(4, holder);
              ps.setLong(5, micros(leaseTtl));
              ps.setLong(6, micros(takeoverDelay));
            },
            (rs, opened) -> {
              if (!rs.next()) {
                return null;
              }
              // The statement set expires_at to acquired_at plus the ttl, to the microsecond.
              Instant acquiredAt = instant(rs, 2);
              return new Granted(rs.getLong(1), acquiredAt, acquiredAt.plus(micros(leaseTtl), ChronoUnit.MICROS));
            });
    if (granted == null) {
      return new AcquireResult.Busy(statusUnchecked(key));
    }
    FencingToken unsigned = new FencingToken(key, granted.fence, runId);
    FencingToken token = signingKey == null ? unsigned : signingKey.sign(unsigned);
    long deadline = deadlineFrom(sentAt, leaseTtl);
    if (ticker.read() - deadline >= 0) {
      Optional<ReleaseResult> released;
      try {
        released = Optional.of(releaseUnchecked(token));
      } catch (LeaseStoreException e) {
        released = Optional.empty();
      }
      return new AcquireResult.TooLate(token, released);
    }
    Lease lease = new Lease(this, token, request.caller(), holder, leaseTtl, granted.acquiredAt, granted.expiresAt, deadline);
    live.add(lease);
    if (closed.get()) {
      // close() ran while this acquire was in flight: it must not hand out a lease that lies.
      lease.markLost(LeaseLoss.Reason.STORE_CLOSED, null);
      releaseQuietly(lease);
    }
    pruneDroppedLeases();
    return new AcquireResult.Acquired(lease);
  }

  private record Granted(long fence, Instant acquiredAt, Instant expiresAt) {}

  // ------------------------------------------------------------------ status

  /**
   * The authoritative state of a key, read from the database (CONTRACT C7), for a caller the
   * access policy lets read it (CONTRACT C17): the status names the owner's run id and fence, from
   * which anyone could build a token.
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
    if (key == null) {
      throw new IllegalArgumentException("key must not be null");
    }
    ensureOpen();
    if (!accessPolicy.permits(caller, key, AccessPolicy.Operation.READ_STATUS)) {
      throw new AccessDeniedException(caller, key, "read the status of " + key);
    }
    return statusUnchecked(key);
  }

  /** The status without the policy: for the store's own answers and its watchers. */
  LeaseStatus statusUnchecked(LeaseKey key) {
    ensureOpen();
    return execute(
        sql.status,
        () -> "read status of " + key,
        ps -> {
          ps.setString(1, key.accountId());
          ps.setString(2, key.sessionId());
        },
        (rs, opened) -> {
          rs.next();
          Instant now = instant(rs, 1);
          UUID runId = rs.getObject(2, UUID.class);
          if (runId == null) {
            return new LeaseStatus(key, LeaseStatus.State.FREE, Optional.empty(), now, now);
          }
          Instant releasedAt = rs.getObject(7) == null ? null : instant(rs, 7);
          LeaseOwner owner =
              new LeaseOwner(
                  runId, rs.getLong(3), rs.getString(4), instant(rs, 5), instant(rs, 6), releasedAt);
          return statusOf(key, owner, now);
        });
  }

  private LeaseStatus statusOf(LeaseKey key, LeaseOwner owner, Instant now) {
    if (owner.releasedAt() != null) {
      return new LeaseStatus(key, LeaseStatus.State.FREE, Optional.of(owner), now, owner.releasedAt());
    }
    if (owner.expiresAt().isAfter(now)) {
      return new LeaseStatus(
          key,
          LeaseStatus.State.HELD,
          Optional.of(owner),
          now,
          owner.expiresAt().plus(takeoverDelay));
    }
    Instant acquirable = owner.expiresAt().plus(takeoverDelay);
    LeaseStatus.State state =
        acquirable.isAfter(now) ? LeaseStatus.State.DRAINING : LeaseStatus.State.FREE;
    return new LeaseStatus(key, state, Optional.of(owner), now, acquirable);
  }

  // ------------------------------------------------------------------ renew

  RenewResult renewOne(Lease lease) {
    ensureOwn(lease);
    ensureOpen();
    lease.checkDeadline();
    if (lease.isEnded()) {
      // Locally lost or released: never extend it in the database again.
      return new RenewResult(false, Optional.empty(), statusUnchecked(lease.key()).databaseNow());
    }
    if (!mayRenew(lease)) {
      return new RenewResult(false, Optional.empty(), statusUnchecked(lease.key()).databaseNow());
    }
    Renewals renewals = renewChunk(List.of(lease));
    Instant expiresAt = renewals.expiries[0];
    return new RenewResult(expiresAt != null, Optional.ofNullable(expiresAt), renewals.databaseNow);
  }

  /**
   * Renews many leases of this store in as few statements as possible (one per {@value
   * #RENEW_CHUNK} leases; with more than one, two run at a time, the second on the store's
   * scheduler). Each lease that the database no longer counts as held is lost from then on; if a
   * statement fails, every lease in it is lost, and no further statement is started.
   *
   * @param leases leases acquired from this store
   * @return how many were renewed and which were lost
   * @throws IllegalArgumentException if a lease belongs to another store
   * @throws IllegalStateException if the store is closed
   */
  public BatchRenewal renewAll(Collection<Lease> leases) {
    if (leases == null) {
      throw new IllegalArgumentException("leases must not be null");
    }
    for (Lease l : leases) {
      ensureOwn(l);
    }
    ensureOpen();
    return renewBatch(leases, false, leases.size() > RENEW_CHUNK ? keeper.helper() : null);
  }

  /**
   * How a batch renewal ended.
   *
   * @param renewed how many leases were renewed
   * @param lost the leases that were not renewed and are lost now
   */
  public record BatchRenewal(int renewed, List<Lease> lost) {
    /**
     * Copies the list.
     *
     * @throws IllegalArgumentException if {@code lost} is null
     */
    public BatchRenewal {
      if (lost == null) {
        throw new IllegalArgumentException("lost must not be null");
      }
      lost = List.copyOf(lost);
    }
  }

  /**
   * Renews in chunks; with a helper and more than one chunk, the helper takes chunks from the
   * same queue as this thread, so two statements run at once (the database does the bulk of the
   * work and has more than one core). If the helper never gets a thread (a busy or one-thread
   * scheduler), this thread does every chunk itself: it waits only for a helper that started.
   */
  BatchRenewal renewBatch(Collection<Lease> leases, boolean swallowFailures, Executor helper) {
    List<Lease> live = new ArrayList<>(leases.size());
    List<Lease> lostLeases = Collections.synchronizedList(new ArrayList<>());
    for (Lease l : leases) {
      l.checkDeadline();
      if (!l.isEnded()) {
        if (mayRenew(l)) {
          live.add(l);
        } else {
          lostLeases.add(l);
        }
      }
    }
    int chunks = (live.size() + RENEW_CHUNK - 1) / RENEW_CHUNK;
    AtomicInteger nextChunk = new AtomicInteger();
    AtomicInteger renewedCount = new AtomicInteger();
    AtomicReference<RuntimeException> failure = new AtomicReference<>();
    Runnable work =
        () -> {
          for (int c; (c = nextChunk.getAndIncrement()) < chunks; ) {
            List<Lease> chunk = live.subList(c * RENEW_CHUNK, Math.min(live.size(), (c + 1) * RENEW_CHUNK));
            try {
              Renewals renewals = renewChunk(chunk);
              for (int i = 0; i < chunk.size(); i++) {
                if (renewals.expiries[i] != null) {
                  renewedCount.incrementAndGet();
                } else {
                  lostLeases.add(chunk.get(i));
                }
              }
            } catch (RuntimeException e) {
              // renewChunk marked the chunk's leases lost (a database failure), or a bug did:
              // either way they count as lost, on whichever thread this ran.
              lostLeases.addAll(chunk);
              if (!swallowFailures || !(e instanceof LeaseStoreException)) {
                failure.compareAndSet(null, e);
                nextChunk.set(chunks); // start no further statement
              }
            }
          }
        };
    // Whoever claims the helper's turn first: the helper (it then runs and counts down), or this
    // thread once it ran out of chunks (the helper, if it starts later, does nothing).
    AtomicBoolean helperClaimed = new AtomicBoolean();
    CountDownLatch helperDone = new CountDownLatch(1);
    boolean helping = false;
    if (helper != null && chunks > 1) {
      try {
        helper.execute(
            () -> {
              if (helperClaimed.compareAndSet(false, true)) {
                try {
                  work.run();
                } finally {
                  helperDone.countDown();
                }
              }
            });
        helping = true;
      } catch (RejectedExecutionException e) {
        // The scheduler is shutting down: renew alone.
      }
    }
    work.run();
    if (helping && !helperClaimed.compareAndSet(false, true)) {
      awaitUninterruptibly(helperDone);
    }
    if (failure.get() != null) {
      throw failure.get();
    }
    return new BatchRenewal(renewedCount.get(), lostLeases);
  }

  /**
   * Asks the access policy whether the run's caller may still renew (CONTRACT C17); a refusal or
   * a policy that throws ends the lease, which is then lost with {@link
   * LeaseLoss.Reason#ACCESS_REVOKED}.
   */
  private boolean mayRenew(Lease lease) {
    boolean permitted;
    RuntimeException failure = null;
    try {
      permitted = accessPolicy.permits(lease.caller(), lease.key(), AccessPolicy.Operation.RENEW);
    } catch (RuntimeException e) {
      permitted = false;
      failure = e;
    }
    if (!permitted) {
      lease.markLost(LeaseLoss.Reason.ACCESS_REVOKED, failure);
    }
    return permitted;
  }

  /** Waits for a helper that started; it stops after its current chunk, as the queue is empty. */
  private static void awaitUninterruptibly(CountDownLatch done) {
    boolean interrupted = false;
    while (true) {
      try {
        done.await();
        break;
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  /** The new expiry of each lease of a chunk, by position (null: not renewed). */
  private record Renewals(Instant[] expiries, Instant databaseNow) {}

  /** One renewal statement; confirms renewed leases and marks the others lost. */
  private Renewals renewChunk(List<Lease> chunk) {
    int n = chunk.size();
    String[] accounts = new String[n];
    String[] sessions = new String[n];
    UUID[] runs = new UUID[n];
    Long[] fences = new Long[n];
    Long[] ttls = new Long[n];
    for (int i = 0; i < n; i++) {
      Lease l = chunk.get(i);
      accounts[i] = l.key().accountId();
      sessions[i] = l.key().sessionId();
      runs[i] = l.runId();
      fences[i] = l.fence();
      ttls[i] = micros(l.ttl());
    }
    long sentAt = ticker.read();
    Renewals renewed;
    try {
      renewed =
          execute(
              sql.renew,
              () -> "renew " + n + " lease(s)",
              (ps, c) -> {
                ps.setArray(1, array(c, "text", accounts));
                ps.setArray(2, array(c, "text", sessions));
                ps.setArray(3, array(c, "uuid", runs));
                ps.setArray(4, array(c, "bigint", fences));
                ps.setArray(5, array(c, "bigint", ttls));
              },
              (rs, opened) -> {
                rs.next();
                Instant now = instant(rs, 1);
                // The statement set each renewed lease's expiry to its time plus the lease's ttl.
                Instant[] expiries = new Instant[n];
                for (Object position : (Object[]) rs.getArray(2).getArray()) {
                  int i = ((Number) position).intValue() - 1;
                  expiries[i] = now.plus(ttls[i], ChronoUnit.MICROS);
                }
                return new Renewals(expiries, now);
              });
    } catch (LeaseStoreException e) {
      for (Lease l : chunk) {
        l.markLost(LeaseLoss.Reason.RENEWAL_FAILED, e);
      }
      throw e;
    }
    for (int i = 0; i < n; i++) {
      Lease l = chunk.get(i);
      if (renewed.expiries[i] != null) {
        l.confirmRenewal(sentAt, renewed.expiries[i]);
      } else {
        l.markLost(LeaseLoss.Reason.RENEWAL_REFUSED, null);
      }
    }
    return renewed;
  }

  // ------------------------------------------------------------------ release

  /**
   * Releases the lease a token names, if that run still holds it. For runs that lost their
   * {@link Lease} handle (a restarted front end, say); a run that has its handle calls {@link
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
    if (token == null) {
      throw new IllegalArgumentException("token must not be null");
    }
    ensureOpen();
    if (!accessPolicy.permits(caller, token.key(), AccessPolicy.Operation.RELEASE)) {
      throw new AccessDeniedException(caller, token.key(), "release a lease of " + token.key());
    }
    return releaseUnchecked(token);
  }

  /**
   * The release of a run's own handle: authorized by the acquire that made it. On a closed store
   * the lease was released by {@link #close()} already.
   */
  ReleaseResult releaseOwn(Lease lease) {
    ensureOwn(lease);
    if (closed.get()) {
      return new ReleaseResult(ReleaseResult.Outcome.NOT_HELD, Optional.empty());
    }
    return releaseUnchecked(lease.identity());
  }

  /**
   * Forgets handles their runs dropped without releasing, once their local deadline passed
   * (they are lost then, and expire in the database by themselves): the set of live handles
   * stays as large as the leases really held.
   */
  private void pruneDroppedLeases() {
    if (acquiresSincePrune.incrementAndGet() < 1024) {
      return;
    }
    acquiresSincePrune.set(0);
    for (Lease l : live) {
      l.checkDeadline();
    }
  }

  private void releaseQuietly(Lease lease) {
    try {
      releaseUnchecked(lease.identity());
    } catch (LeaseStoreException e) {
      System.getLogger(LeaseStore.class.getName())
          .log(System.Logger.Level.WARNING, "could not release " + lease + " on close; it will expire", e);
    }
  }

  /**
   * Ends whichever run holds a session's live lease, for an operator (a stuck run, a run that
   * must stop now): an administrative operation, allowed only by the access policy's {@link
   * AccessPolicy.Operation#FORCE_RELEASE} and recorded in the audit table ({@code
   * <table>_audit}) in the same transaction, whether or not a lease was live. The forced run
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
    if (key == null) {
      throw new IllegalArgumentException("key must not be null");
    }
    MarkReset.checkText("caller", caller);
    MarkReset.checkText("reason", reason);
    ensureOpen();
    if (!accessPolicy.permits(caller, key, AccessPolicy.Operation.FORCE_RELEASE)) {
      throw new AccessDeniedException(caller, key, "force the release of " + key);
    }
    return execute(
        sql.forceRelease,
        () -> "force the release of " + key,
        ps -> {
          ps.setString(1, key.accountId());
          ps.setString(2, key.sessionId());
          ps.setString(3, caller);
          ps.setString(4, key.accountId());
          ps.setString(5, key.sessionId());
          ps.setString(6, reason);
        },
        (rs, opened) -> {
          rs.next();
          boolean released = rs.getObject(1) != null;
          return new ReleaseResult(
              released ? ReleaseResult.Outcome.RELEASED : ReleaseResult.Outcome.NOT_HELD,
              Optional.of(instant(rs, 3)));
        });
  }

  private ReleaseResult releaseUnchecked(FencingToken token) {
    return execute(
            sql.release,
            () -> "release " + token,
            ps -> {
              ps.setString(1, token.key().accountId());
              ps.setString(2, token.key().sessionId());
              ps.setObject(3, token.runId());
              ps.setLong(4, token.fence());
            },
            (rs, opened) ->
                rs.next()
                    ? new ReleaseResult(ReleaseResult.Outcome.RELEASED, Optional.of(instant(rs, 1)))
                    : new ReleaseResult(ReleaseResult.Outcome.NOT_HELD, Optional.of(opened.get())));
  }

  // ------------------------------------------------------------------ sweep

  /**
   * Deletes the rows of leases that ended at least {@code deadFor} ago (released, or expired and
   * never released), so the table does not grow with every session ever used. A maintenance
   * task, for an operator's schedule (daily, say): an administrative operation, allowed only by
   * the access policy's {@link AccessPolicy.Operation#SWEEP} (with a null key), and recorded in
   * the audit table after its last batch.
   *
   * <p>Why it keeps fences increasing (CONTRACT C3): a swept key's next acquire inserts a new row
   * with a fence drawn from the same sequence, higher than every fence drawn before, including
   * the deleted row's. The one hazard is an acquire that drew its fence before the deletion and
   * inserts after it: every acquire statement is bounded by its store's statement timeout, and a
   * row dead for longer than any statement timeout (at most {@link #MAX_TTL}) was not seen by an
   * acquire still in flight. {@code deadFor} must therefore be at least {@link #MAX_TTL}, which
   * also covers every takeover delay (a row still within one must not be swept). A row that an
   * acquire takes over while the sweep runs is kept.
   *
   * <p>Walks the table once in primary-key order, {@value #SWEEP_BATCH} rows per statement, each
   * statement its own short transaction with the store's timeouts; rows created meanwhile behind
   * the walk wait for the next sweep.
   *
   * @param deadFor how long a lease must have ended, at least {@link #MAX_TTL}
   * @param caller the operator, passed to the access policy and recorded
   * @return the number of rows deleted
   * @throws AccessDeniedException if the policy refuses the caller; nothing changed
   * @throws IllegalArgumentException if {@code deadFor} is null, shorter than {@link #MAX_TTL} or
   *     longer than 100 years
   * @throws IllegalStateException if the store is closed
   * @throws LeaseStoreException if the database fails (batches already deleted stay deleted)
   */
  public long sweep(Duration deadFor, String caller) {
    if (deadFor == null || deadFor.compareTo(MAX_TTL) < 0 || deadFor.compareTo(MAX_SWEEP_AGE) > 0) {
      throw new IllegalArgumentException(
          "deadFor must be between " + MAX_TTL + " (the longest statement timeout or takeover delay a store"
              + " may have) and " + MAX_SWEEP_AGE + ", was " + deadFor);
    }
    MarkReset.checkText("caller", caller);
    ensureOpen();
    if (!accessPolicy.permits(caller, null, AccessPolicy.Operation.SWEEP)) {
      throw new AccessDeniedException(caller, null, "sweep the lease table");
    }
    long age = micros(deadFor);
    long total = 0;
    // Keys are at least one character long: every key sorts after ("", "").
    SweepBatch batch = new SweepBatch(0, SWEEP_BATCH, "", "");
    while (batch.walked() == SWEEP_BATCH) {
      SweepBatch previous = batch;
      batch =
          execute(
              sql.sweep,
              () -> "sweep leases dead for " + deadFor,
              ps -> {
                ps.setString(1, previous.lastAccount());
                ps.setString(2, previous.lastSession());
                ps.setInt(3, SWEEP_BATCH);
                ps.setLong(4, age);
                ps.setLong(5, age);
              },
              (rs, opened) -> {
                rs.next();
                return new SweepBatch(rs.getLong(1), rs.getLong(2), rs.getString(3), rs.getString(4));
              });
      total += batch.deleted();
    }
    long deleted = total;
    execute(
        sql.auditSweep,
        () -> "record the sweep in the audit table",
        ps -> {
          ps.setString(1, caller);
          ps.setString(2, "rows of leases dead for at least " + deadFor);
          ps.setString(3, "deleted " + deleted + " row(s)");
        },
        (rs, opened) -> rs.next());
    return total;
  }

  /** One sweep statement: rows deleted, rows walked, and the last key walked (null if none). */
  private record SweepBatch(long deleted, long walked, String lastAccount, String lastSession) {}

  // ------------------------------------------------------------------ run exclusive

  /**
   * The common case in one call: acquire, keep alive, run the work on this thread, release.
   *
   * <p>If the lease is lost while the work runs, this thread is interrupted (the cancellation
   * signal: blocking calls throw {@link InterruptedException}, loops should check {@link
   * Thread#isInterrupted()} or {@link Lease#isLost()}), every later fenced operation with the
   * lease is refused, and the outcome is {@link RunOutcome.Lost} whatever the work returned. The
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
    if (work == null) {
      throw new IllegalArgumentException("work must not be null");
    }
    AcquireResult result = tryAcquire(request);
    if (!(result instanceof AcquireResult.Acquired acquired)) {
      return new RunOutcome.NotAcquired<>(result);
    }
    Lease lease = acquired.lease();
    Thread worker = Thread.currentThread();
    Object interruptLock = new Object();
    boolean[] state = new boolean[2]; // [0]: work running, [1]: interrupted by us
    state[0] = true;
    Runnable unhook =
        lease.onLost(
            loss -> {
              synchronized (interruptLock) {
                if (state[0]) {
                  state[1] = true;
                  worker.interrupt();
                }
              }
            });
    try {
      lease.keepAlive();
      T value;
      try {
        value = work.run(lease);
      } catch (Exception e) {
        Optional<LeaseLoss> loss = lease.loss();
        if (loss.isPresent()) {
          return new RunOutcome.Lost<>(loss.get(), Optional.of(e));
        }
        if (e instanceof RuntimeException re) {
          throw re;
        }
        throw new LeaseWorkException(e);
      }
      Optional<LeaseLoss> loss = lease.loss();
      if (loss.isPresent()) {
        return new RunOutcome.Lost<>(loss.get(), Optional.empty());
      }
      return new RunOutcome.Completed<>(value, lease.identity());
    } finally {
      unhook.run();
      synchronized (interruptLock) {
        state[0] = false;
        if (state[1]) {
          Thread.interrupted();
        }
      }
      try {
        lease.release();
      } catch (LeaseStoreException e) {
        System.getLogger(LeaseStore.class.getName())
            .log(System.Logger.Level.WARNING, "release after exclusive run failed; it will expire", e);
      }
    }
  }

  // ------------------------------------------------------------------ lifecycle

  /**
   * Closes the store: every lease it handed out and that is still held, kept alive or not, is
   * declared lost ({@link LeaseLoss.Reason#STORE_CLOSED}), so its work stops and its handle
   * refuses fenced operations, and then released in the database, so the next run does not wait
   * for the TTL; then the store's own scheduler, if it made one, is stopped. Idempotent, and safe
   * to call from a loss listener. Afterwards every method throws {@link IllegalStateException},
   * except {@link Lease#release()}, which answers {@code NOT_HELD}.
   */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    java.util.Set<Lease> ending = new java.util.LinkedHashSet<>(keeper.stopAndDrain());
    ending.addAll(live);
    for (Lease lease : ending) {
      if (!lease.isEnded()) {
        lease.markLost(LeaseLoss.Reason.STORE_CLOSED, null);
        releaseQuietly(lease);
      }
    }
    live.clear();
    keeper.shutdown();
  }

  /**
   * Whether {@link #close()} was called.
   *
   * @return true once closed
   */
  public boolean isClosed() {
    return closed.get();
  }

  /**
   * The default TTL.
   *
   * @return the TTL
   */
  public Duration ttl() {
    return ttl;
  }

  /**
   * The keeper's renew interval.
   *
   * @return the interval
   */
  public Duration renewInterval() {
    return renewInterval;
  }

  /**
   * The schema names in use.
   *
   * @return the schema
   */
  public LeaseSchema schema() {
    return schema;
  }

  /**
   * How many leases the keeper currently renews.
   *
   * @return the count
   */
  public int keptLeaseCount() {
    return keeper.size();
  }

  // ------------------------------------------------------------------ internals

  Ticker ticker() {
    return ticker;
  }

  long deadlineFrom(long sentAtNanos, Duration leaseTtl) {
    return sentAtNanos + leaseTtl.toNanos() - safetyMargin.toNanos();
  }

  void keep(Lease lease) {
    ensureOwn(lease);
    ensureOpen();
    keeper.keep(lease);
  }

  void forget(Lease lease) {
    keeper.forget(lease);
    live.remove(lease);
  }

  private void ensureOpen() {
    if (closed.get()) {
      throw new IllegalStateException("the lease store is closed");
    }
  }

  private void ensureOwn(Lease lease) {
    if (lease == null) {
      throw new IllegalArgumentException("lease must not be null");
    }
    if (lease.store() != this) {
      throw new IllegalArgumentException(lease + " was acquired from another lease store");
    }
  }

  private void checkLeaseTtl(Duration leaseTtl) {
    checkRange("ttl", leaseTtl, MIN_TTL, MAX_TTL);
    Duration needed = renewInterval.plus(statementTimeout).plus(safetyMargin);
    if (leaseTtl.compareTo(needed) < 0) {
      throw new IllegalArgumentException(
          "ttl "
              + leaseTtl
              + " is shorter than renew interval + statement timeout + safety margin ("
              + needed
              + "): a renewal could not complete before the local deadline");
    }
  }

  private static long micros(Duration d) {
    return d.toNanos() / 1_000;
  }

  private static Instant instant(ResultSet rs, int column) throws SQLException {
    return rs.getObject(column, OffsetDateTime.class).toInstant();
  }

  private static Array array(Connection c, String type, Object[] values) throws SQLException {
    return c.createArrayOf(type, values);
  }

  @FunctionalInterface
  private interface Binder {
    void bind(PreparedStatement ps, Connection c) throws SQLException;
  }

  @FunctionalInterface
  private interface SimpleBinder extends Binder {
    void bind(PreparedStatement ps) throws SQLException;

    @Override
    default void bind(PreparedStatement ps, Connection c) throws SQLException {
      bind(ps);
    }
  }

  @FunctionalInterface
  private interface Reader<T> {
    /**
     * @param rs the statement's result
     * @param opened the database clock at the opening of the short transaction, read on demand
     */
    T read(ResultSet rs, OpeningTime opened) throws SQLException;
  }

  /** The opening's database time, parsed only when asked for. */
  @FunctionalInterface
  private interface OpeningTime {
    Instant get() throws SQLException;
  }

  /** Reads the time from the opening's result set on first use. */
  private static final class OpeningRow implements OpeningTime {
    private final ResultSet row;
    private Instant time;

    OpeningRow(ResultSet row) {
      this.row = row;
    }

    @Override
    public Instant get() throws SQLException {
      if (time == null) {
        if (!row.next()) {
          throw new SQLException("the opening returned no row");
        }
        time = instant(row, 1);
      }
      return time;
    }
  }

  private <T> T execute(String statement, Supplier<String> what, SimpleBinder binder, Reader<T> reader) {
    return execute(statement, what, (Binder) binder, reader);
  }

  /**
   * Runs one pipelined short transaction (see {@link LeaseSql}) and reads its only result set.
   */
  private <T> T execute(String statement, Supplier<String> what, Binder binder, Reader<T> reader) {
    try (Connection c = dataSource.getConnection()) {
      boolean autoCommit = c.getAutoCommit();
      if (!autoCommit) {
        c.setAutoCommit(true);
      }
      try (PreparedStatement ps = c.prepareStatement(statement)) {
        binder.bind(ps, c);
        boolean isResultSet = ps.execute();
        // The first result set is the opening's row (time, set_config). It stays open (closing
        // the statement closes it), and its time is parsed only if the reader asks for it.
        ResultSet opening = null;
        while (true) {
          if (isResultSet) {
            ResultSet rs = ps.getResultSet();
            if (opening != null) {
              try (rs) {
                return reader.read(rs, new OpeningRow(opening));
              }
            }
            opening = rs;
            isResultSet = ps.getMoreResults(Statement.KEEP_CURRENT_RESULT);
          } else if (ps.getUpdateCount() == -1) {
            throw new IllegalStateException("statement returned no result set: " + what.get());
          } else {
            isResultSet = ps.getMoreResults(Statement.KEEP_CURRENT_RESULT);
          }
        }
      } finally {
        if (!autoCommit && !c.isClosed()) {
          c.setAutoCommit(false);
        }
      }
    } catch (SQLException e) {
      throw new LeaseStoreException(
          "could not " + what.get() + ": " + e.getMessage() + " (SQLState " + e.getSQLState() + ")", e);
    }
  }

  private static void checkRange(String name, Duration d, Duration min, Duration max) {
    if (d == null) {
      throw new IllegalArgumentException(name + " must not be null");
    }
    if (d.compareTo(min) < 0 || d.compareTo(max) > 0) {
      throw new IllegalArgumentException(
          name + " must be between " + min + " and " + max + ", was " + d);
    }
  }

  /**
   * Options of a {@link LeaseStore}. Every option has a default except the access policy, which
   * the application must choose. Not thread-safe; {@link #build()} copies the options, so the
   * builder may be reused.
   */
  public static final class Builder {
    private final DataSource dataSource;
    private LeaseSchema schema = LeaseSchema.defaults();
    private Duration ttl = Duration.ofSeconds(30);
    private Duration renewInterval;
    private Duration safetyMargin;
    private Duration lockTimeout;
    private Duration statementTimeout;
    private Duration takeoverDelay = Duration.ZERO;
    private AccessPolicy accessPolicy;
    private Ticker ticker = Ticker.system();
    private ScheduledExecutorService scheduler;
    private String defaultHolder = "pid " + ProcessHandle.current().pid();
    private boolean notifyChanges = false;
    private SigningKey signingKey;

    private Builder(DataSource dataSource) {
      if (dataSource == null) {
        throw new IllegalArgumentException("dataSource must not be null");
      }
      this.dataSource = dataSource;
    }

    /**
     * Table and sequence names. Default {@link LeaseSchema#defaults()}.
     *
     * @param schema the names
     * @return this builder
     */
    public Builder schema(LeaseSchema schema) {
      this.schema = require("schema", schema);
      return this;
    }

    /**
     * Default lease TTL, between {@link #MIN_TTL} and {@link #MAX_TTL}. Default 30 s.
     *
     * @param ttl the TTL
     * @return this builder
     */
    public Builder ttl(Duration ttl) {
      this.ttl = require("ttl", ttl);
      return this;
    }

    /**
     * How often the keeper renews kept leases. Default a third of the TTL.
     *
     * @param renewInterval the interval
     * @return this builder
     */
    public Builder renewInterval(Duration renewInterval) {
      this.renewInterval = require("renewInterval", renewInterval);
      return this;
    }

    /**
     * How much earlier than TTL the local deadline falls, to absorb clock-rate differences and
     * scheduling delays. Default a tenth of the TTL.
     *
     * @param safetyMargin the margin, zero or more
     * @return this builder
     */
    public Builder safetyMargin(Duration safetyMargin) {
      this.safetyMargin = require("safetyMargin", safetyMargin);
      return this;
    }

    /**
     * PostgreSQL {@code lock_timeout} of every statement. Default the smaller of 1 s and a tenth
     * of the TTL.
     *
     * @param lockTimeout the timeout, at least 1 ms
     * @return this builder
     */
    public Builder lockTimeout(Duration lockTimeout) {
      this.lockTimeout = require("lockTimeout", lockTimeout);
      return this;
    }

    /**
     * PostgreSQL {@code statement_timeout} of every statement. Default the smaller of 5 s and a
     * quarter of the TTL.
     *
     * @param statementTimeout the timeout, at least the lock timeout
     * @return this builder
     */
    public Builder statementTimeout(Duration statementTimeout) {
      this.statementTimeout = require("statementTimeout", statementTimeout);
      return this;
    }

    /**
     * How long a key stays unacquirable after a lease <em>expired</em> (not after a clean
     * release), so that side effects the vanished run still has in flight can drain before the
     * next run starts (Chubby's lock-delay). Decided in the acquire statement by database time.
     * Default zero.
     *
     * @param takeoverDelay the delay, between zero and {@link #MAX_TTL}
     * @return this builder
     */
    public Builder takeoverDelay(Duration takeoverDelay) {
      this.takeoverDelay = require("takeoverDelay", takeoverDelay);
      return this;
    }

    /**
     * Who may run which session (CONTRACT C8). Required: choose {@link AccessPolicy#allowAll()}
     * explicitly if access is checked before the store.
     *
     * @param accessPolicy the policy
     * @return this builder
     */
    public Builder accessPolicy(AccessPolicy accessPolicy) {
      this.accessPolicy = require("accessPolicy", accessPolicy);
      return this;
    }

    /**
     * The monotonic time source of local deadlines. Default {@link Ticker#system()}.
     *
     * @param ticker the ticker
     * @return this builder
     */
    public Builder ticker(Ticker ticker) {
      this.ticker = require("ticker", ticker);
      return this;
    }

    /**
     * A scheduler for the keeper, owned by the caller (the store never shuts it down). It should
     * have at least two threads, so a renewal blocked on the database cannot delay the deadline
     * watch, and a third lets a renewal of more than {@value LeaseStore#RENEW_CHUNK} leases run
     * two statements at once. Default: the store creates and owns one on first use.
     *
     * @param scheduler the scheduler
     * @return this builder
     */
    public Builder scheduler(ScheduledExecutorService scheduler) {
      this.scheduler = require("scheduler", scheduler);
      return this;
    }

    /**
     * Holder description used when a request gives none. Default {@code "pid <pid>"}.
     *
     * @param holder the description
     * @return this builder
     */
    public Builder defaultHolder(String holder) {
      // AcquireRequest validates holder text; reuse it.
      new AcquireRequest(LeaseKey.of("x", "x"), "x", require("holder", holder), Optional.empty());
      this.defaultHolder = holder;
      return this;
    }

    /**
     * Whether this store publishes its acquires, takeovers and releases to {@link LeaseWatcher}s
     * (LISTEN/NOTIFY, from the same transaction as the change). Default false: turn it on in the
     * stores whose leases a screen watches. A watcher hears only the changes of stores that
     * publish (it still notices expiry and renewal of the leases it follows, by their deadlines).
     * Off by default because PostgreSQL serializes the commits of all notifying transactions of a
     * server: on the benchmark machine publishing cost 10% of acquire + release throughput at 4
     * clients and 40% at 16.
     *
     * @param notifyChanges true to publish changes
     * @return this builder
     */
    public Builder notifyChanges(boolean notifyChanges) {
      this.notifyChanges = notifyChanges;
      return this;
    }

    /**
     * Signs every token this store issues with the key (CONTRACT C15), so resources built with
     * {@code TokenVerifier.signedBy(...)} admit them and refuse forged ones. Default: unsigned
     * tokens, which only resources that trust every writer, or verify against the lease table,
     * admit. To rotate, add the new key's verification key to every resource first, then
     * restart the stores with the new signing key (docs/security.md).
     *
     * @param signingKey the key
     * @return this builder
     */
    public Builder tokenSigningKey(SigningKey signingKey) {
      this.signingKey = require("signingKey", signingKey);
      return this;
    }

    /**
     * Builds the store. No connection is opened here.
     *
     * @return the store
     * @throws IllegalArgumentException if options do not fit together
     * @throws IllegalStateException if no access policy was chosen
     */
    public LeaseStore build() {
      if (accessPolicy == null) {
        throw new IllegalStateException(
            "choose an accessPolicy (AccessPolicy.allowAll() if access is checked elsewhere)");
      }
      checkRange("ttl", ttl, MIN_TTL, MAX_TTL);
      checkRange("takeoverDelay", takeoverDelay, Duration.ZERO, MAX_TTL);
      Builder copy = copy();
      if (copy.renewInterval == null) {
        copy.renewInterval = ttl.dividedBy(3);
      }
      if (copy.safetyMargin == null) {
        copy.safetyMargin = ttl.dividedBy(10);
      }
      if (copy.lockTimeout == null) {
        copy.lockTimeout = min(Duration.ofSeconds(1), ttl.dividedBy(10));
      }
      if (copy.statementTimeout == null) {
        copy.statementTimeout = min(Duration.ofSeconds(5), ttl.dividedBy(4));
      }
      checkRange("renewInterval", copy.renewInterval, Duration.ofMillis(1), ttl);
      checkRange("safetyMargin", copy.safetyMargin, Duration.ZERO, ttl);
      checkRange("lockTimeout", copy.lockTimeout, Duration.ofMillis(1), ttl);
      checkRange("statementTimeout", copy.statementTimeout, Duration.ofMillis(1), ttl);
      if (copy.lockTimeout.compareTo(copy.statementTimeout) > 0) {
        throw new IllegalArgumentException("lockTimeout must not exceed statementTimeout");
      }
      Duration needed = copy.renewInterval.plus(copy.statementTimeout).plus(copy.safetyMargin);
      if (ttl.compareTo(needed) < 0) {
        throw new IllegalArgumentException(
            "ttl "
                + ttl
                + " is shorter than renewInterval + statementTimeout + safetyMargin ("
                + needed
                + "): a renewal could not complete before the local deadline");
      }
      return new LeaseStore(copy);
    }

    private Builder copy() {
      Builder b = new Builder(dataSource);
      b.schema = schema;
      b.ttl = ttl;
      b.renewInterval = renewInterval;
      b.safetyMargin = safetyMargin;
      b.lockTimeout = lockTimeout;
      b.statementTimeout = statementTimeout;
      b.takeoverDelay = takeoverDelay;
      b.accessPolicy = accessPolicy;
      b.ticker = ticker;
      b.scheduler = scheduler;
      b.defaultHolder = defaultHolder;
      b.notifyChanges = notifyChanges;
      b.signingKey = signingKey;
      return b;
    }

    private static Duration min(Duration a, Duration b) {
      return a.compareTo(b) <= 0 ? a : b;
    }

    private static <T> T require(String name, T value) {
      if (value == null) {
        throw new IllegalArgumentException(name + " must not be null");
      }
      return value;
    }
  }
}
