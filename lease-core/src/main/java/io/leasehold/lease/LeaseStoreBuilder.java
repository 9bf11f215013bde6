package io.leasehold.lease;

import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.SigningKey;
import io.leasehold.fencing.internal.Arguments;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ScheduledExecutorService;
import javax.sql.DataSource;

/**
 * Options of a {@link LeaseStore}. Every option has a default except the access policy, which the
 * application must choose. Not thread-safe; {@link #build()} copies the options, so the builder may
 * be reused.
 */
public final class LeaseStoreBuilder {
  final DataSource dataSource;
  LeaseSchema schema = LeaseSchema.defaults();
  Duration ttl = Duration.ofSeconds(30);
  Duration renewInterval;
  Duration safetyMargin;
  Duration lockTimeout;
  Duration statementTimeout;
  Duration takeoverDelay = Duration.ZERO;
  AccessPolicy accessPolicy;
  Ticker ticker = Ticker.system();
  ScheduledExecutorService scheduler;
  String defaultHolder = "pid " + ProcessHandle.current().pid();
  boolean notifyChanges = false;
  boolean dedicatedPool = false;
  SigningKey signingKey;
  Duration waitPollCeiling = Duration.ofMillis(500);
  boolean closeOnJvmExit = false;

  LeaseStoreBuilder(DataSource dataSource) {
    this.dataSource = Arguments.required(dataSource, "dataSource");
  }

  /**
   * Table and sequence names. Default {@link LeaseSchema#defaults()}.
   *
   * @param schema the names
   * @return this builder
   */
  public LeaseStoreBuilder schema(LeaseSchema schema) {
    this.schema = require("schema", schema);
    return this;
  }

  /**
   * Default lease TTL, between {@link LeaseStore#MIN_TTL} and {@link LeaseStore#MAX_TTL}. Default
   * 30 s.
   *
   * @param ttl the TTL
   * @return this builder
   */
  public LeaseStoreBuilder ttl(Duration ttl) {
    this.ttl = require("ttl", ttl);
    return this;
  }

  /**
   * How often the keeper renews kept leases. Default a third of the TTL.
   *
   * @param renewInterval the interval
   * @return this builder
   */
  public LeaseStoreBuilder renewInterval(Duration renewInterval) {
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
  public LeaseStoreBuilder safetyMargin(Duration safetyMargin) {
    this.safetyMargin = require("safetyMargin", safetyMargin);
    return this;
  }

  /**
   * PostgreSQL {@code lock_timeout} of every statement. Default the smaller of 1 s and a tenth of
   * the TTL.
   *
   * @param lockTimeout the timeout, at least 1 ms
   * @return this builder
   */
  public LeaseStoreBuilder lockTimeout(Duration lockTimeout) {
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
  public LeaseStoreBuilder statementTimeout(Duration statementTimeout) {
    this.statementTimeout = require("statementTimeout", statementTimeout);
    return this;
  }

  /**
   * How long a key stays unacquirable after a lease <em>expired</em> (not after a clean release),
   * so that side effects the vanished run still has in flight can drain before the next run starts
   * (Chubby's lock-delay). Decided in the acquire statement by database time. Default zero.
   *
   * @param takeoverDelay the delay, between zero and {@link LeaseStore#MAX_TTL}
   * @return this builder
   */
  public LeaseStoreBuilder takeoverDelay(Duration takeoverDelay) {
    this.takeoverDelay = require("takeoverDelay", takeoverDelay);
    return this;
  }

  /**
   * Who may run which session. Required: choose {@link AccessPolicy#allowAll()} explicitly if
   * access is checked before the store.
   *
   * @param accessPolicy the policy
   * @return this builder
   */
  public LeaseStoreBuilder accessPolicy(AccessPolicy accessPolicy) {
    this.accessPolicy = require("accessPolicy", accessPolicy);
    return this;
  }

  /**
   * The monotonic time source of local deadlines. Default {@link Ticker#system()}.
   *
   * @param ticker the ticker
   * @return this builder
   */
  public LeaseStoreBuilder ticker(Ticker ticker) {
    this.ticker = require("ticker", ticker);
    return this;
  }

  /**
   * A scheduler for the keeper, owned by the caller (the store never shuts it down). It should have
   * at least two threads, so a renewal blocked on the database cannot delay the deadline watch, and
   * a third lets a renewal of more than 10,000 leases run two statements at once. Default: the
   * store creates and owns one on first use.
   *
   * @param scheduler the scheduler
   * @return this builder
   */
  public LeaseStoreBuilder scheduler(ScheduledExecutorService scheduler) {
    this.scheduler = require("scheduler", scheduler);
    return this;
  }

  /**
   * Holder description used when a request gives none. Default {@code "pid <pid>"}.
   *
   * @param holder the description
   * @return this builder
   */
  public LeaseStoreBuilder defaultHolder(String holder) {
    // AcquireRequest validates holder text; reuse it.
    new AcquireRequest(LeaseKey.of("x", "x"), "x", require("holder", holder), Optional.empty());
    this.defaultHolder = holder;
    return this;
  }

  /**
   * Whether this store publishes its acquires, takeovers and releases to {@link LeaseWatcher}s
   * (LISTEN/NOTIFY). Default false: turn it on in the stores whose leases a screen watches or
   * another process waits for. A watcher hears only the changes of stores that publish (it still
   * notices expiry and renewal of the leases it follows, by their deadlines).
   *
   * <p>Each change is published after it committed: the caller only queues it, and the store's
   * thread {@code leasehold-publisher-<table>} (a daemon, started at the first change, stopped by
   * {@link LeaseStore#close()}) sends what is queued in one short transaction that does not wait
   * for its WAL flush, borrowing one connection of the store's pool per batch (count it in the pool
   * size). It is not sent from the changing statement because PostgreSQL serializes the commits of
   * all notifying transactions of a server, each through its flush: that way cost two thirds of the
   * throughput at 16 threads (docs/performance.md). What a watcher does about a change whose
   * publication was lost is said at {@link LeaseWatcher}.
   *
   * @param notifyChanges true to publish changes
   * @return this builder
   */
  public LeaseStoreBuilder notifyChanges(boolean notifyChanges) {
    this.notifyChanges = notifyChanges;
    return this;
  }

  /**
   * Whether the {@code DataSource} serves this store alone: no other code borrows its connections.
   * Then the store sets {@code lock_timeout} and {@code statement_timeout} once per connection, for
   * the session, instead of sending them with every statement (either way, every statement of the
   * store runs under both). The measured saving is a third of a refused acquire's database time and
   * a sixth of an acquire + release cycle's (docs/performance.md).
   *
   * <p>Only for a pool of the store's own, such as a small HikariCP pool made for it. On a pool the
   * application also uses, the settings would stay on connections the application borrows next and
   * cut off its own long queries; and behind a pooler in transaction mode (PgBouncer's {@code
   * pool_mode = transaction}) session settings stay with a server connection that other clients
   * get. A {@code DataSource} without a pool works, but pays one more round trip per statement.
   * Default false: each statement carries its timeouts for its own transaction only, which is safe
   * on any pool. On a Citus coordinator every statement carries them either way, as {@code SET
   * LOCAL} in a transaction block: session settings do not reach the workers (docs/scale-out.md).
   *
   * @param dedicatedPool true if no one else uses the data source's connections
   * @return this builder
   */
  public LeaseStoreBuilder dedicatedPool(boolean dedicatedPool) {
    this.dedicatedPool = dedicatedPool;
    return this;
  }

  /**
   * Signs every token this store issues with the key, so resources built with {@code
   * TokenVerifier.signedBy(...)} admit them and refuse forged ones. Default: unsigned tokens, which
   * only resources that trust every writer, or verify against the lease table, admit. To rotate,
   * add the new key's verification key to every resource first, then restart the stores with the
   * new signing key (docs/security.md).
   *
   * @param signingKey the key
   * @return this builder
   */
  public LeaseStoreBuilder tokenSigningKey(SigningKey signingKey) {
    this.signingKey = require("signingKey", signingKey);
    return this;
  }

  /**
   * The longest pause between two tries of a waiting acquire ({@link LeaseStore#acquire(
   * AcquireRequest, Duration)}) that hears of no release. Pauses start at a fiftieth of this and
   * double up to it; a waiter also tries when the holder's lease runs out, and at once when a
   * release by this store or one a {@link LeaseWatcher} on this store heard of wakes it. Raise it
   * when a watcher hears every release (fewer statements from waiters), lower it for waiters on
   * keys released by processes that publish nothing. Default 500 ms; between 10 ms and 1 hour.
   *
   * @param ceiling the longest pause
   * @return this builder
   */
  public LeaseStoreBuilder waitPollCeiling(Duration ceiling) {
    checkRange("waitPollCeiling", ceiling, Duration.ofMillis(10), Duration.ofHours(1));
    this.waitPollCeiling = ceiling;
    return this;
  }

  /**
   * Whether the store closes itself when the JVM exits normally (the end of {@code main}, {@code
   * System.exit}, SIGTERM or Ctrl-C; not SIGKILL or a crash): its held leases are released then, so
   * the next process takes the sessions over at once instead of waiting out the TTL. Off by
   * default: it registers a JVM shutdown hook, which {@link LeaseStore#close()} removes again.
   * Shutdown hooks run in no particular order: if the store's {@code DataSource} also closes itself
   * at exit, close the store first from your own hook instead (or let a framework order it, as the
   * Spring Boot integration does). Default false.
   *
   * @param closeOnJvmExit true to release held leases at JVM exit
   * @return this builder
   */
  public LeaseStoreBuilder closeOnJvmExit(boolean closeOnJvmExit) {
    this.closeOnJvmExit = closeOnJvmExit;
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
    checkRange("ttl", ttl, LeaseStore.MIN_TTL, LeaseStore.MAX_TTL);
    checkRange("takeoverDelay", takeoverDelay, Duration.ZERO, LeaseStore.MAX_TTL);
    LeaseStoreBuilder copy = copy();
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

  private LeaseStoreBuilder copy() {
    LeaseStoreBuilder b = new LeaseStoreBuilder(dataSource);
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
    b.dedicatedPool = dedicatedPool;
    b.signingKey = signingKey;
    b.waitPollCeiling = waitPollCeiling;
    b.closeOnJvmExit = closeOnJvmExit;
    return b;
  }

  static void checkRange(String name, Duration d, Duration min, Duration max) {
    if (d == null) {
      throw new IllegalArgumentException(name + " must not be null");
    }
    if (d.compareTo(min) < 0 || d.compareTo(max) > 0) {
      throw new IllegalArgumentException(
          name + " must be between " + min + " and " + max + ", was " + d);
    }
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
