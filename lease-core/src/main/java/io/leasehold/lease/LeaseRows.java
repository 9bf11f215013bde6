package io.leasehold.lease;

import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * What the store's one-shot statements bind and what their rows say: each method runs one
 * statement of {@link LeaseSql} (the sweep, one per batch) through the {@link StatementRunner} and
 * turns its row into the store's records. No access policy, listener or local deadline here:
 * {@link LeaseStore} decides who may call and what an answer means for a run; renewal has its own
 * room ({@link BatchRenewer}).
 *
 * <p>Thread-safe (it holds no mutable state).
 */
final class LeaseRows {
  /** Rows deleted per statement by {@link #sweep}. */
  static final int SWEEP_BATCH = 10_000;

  private final StatementRunner runner;
  private final LeaseSql sql;
  private final Duration takeoverDelay;
  /** Null for a store that does not publish its changes. */
  private final ChangePublisher publisher;
  private final FenceSource fenceSource;

  LeaseRows(StatementRunner runner, LeaseSql sql, Duration takeoverDelay) {
    this(runner, sql, takeoverDelay, null);
  }

  /** @param publisher where a publishing store's committed changes go, or null */
  LeaseRows(StatementRunner runner, LeaseSql sql, Duration takeoverDelay, ChangePublisher publisher) {
    this.runner = runner;
    this.sql = sql;
    this.takeoverDelay = takeoverDelay;
    this.publisher = publisher;
    this.fenceSource = new FenceSource(runner, sql.schema, sql.fenceSource);
  }

  /** The acquire statement's answer: granted, or refused with the holder's row as it saw it. */
  sealed interface AcquireAnswer {}

  /** This run got the key; the expiry is exact (the statement set it to acquiredAt + ttl). */
  record Granted(long fence, Instant acquiredAt, Instant expiresAt, boolean tookOver) implements AcquireAnswer {}

  /**
   * Someone else holds or is taking the key. {@code seen} is null when the statement saw no row:
   * another first acquire inserted the key meanwhile.
   */
  record Refused(LeaseStatus seen) implements AcquireAnswer {}

  /**
   * Runs the acquire statement for a new run.
   *
   * @throws LeaseStoreException if it fails, including a lock wait past the lock timeout (which
   *     the caller turns into Busy, CONTRACT C18)
   */
  AcquireAnswer acquire(LeaseKey key, UUID runId, String holder, Duration leaseTtl) {
    // No fence is drawn before the store knows it draws from the table's own sequence (C3).
    fenceSource.confirm();
    AcquireAnswer answer = acquireRow(key, runId, holder, leaseTtl);
    if (publisher != null && answer instanceof Granted g) {
      publisher.publish(g.tookOver() ? ChangePublisher.Event.TAKEN_OVER : ChangePublisher.Event.ACQUIRED, key, g.fence());
    }
    return answer;
  }

  private AcquireAnswer acquireRow(LeaseKey key, UUID runId, String holder, Duration leaseTtl) {
    long ttlMicros = StatementRunner.micros(leaseTtl);
    AcquireAnswer answer =
        runner.execute(
            sql.acquire,
            () -> "acquire " + key,
            ps -> LeaseSql.bindAcquire(ps, key, runId, holder, ttlMicros, StatementRunner.micros(takeoverDelay)),
            (rs, opened) -> {
              if (!rs.next()) {
                return null;
              }
              Instant acquiredAt = StatementRunner.instant(rs, 3);
              if (rs.getBoolean(1)) {
                // The ninth column is there only when the store publishes.
                boolean tookOver = publisher != null && rs.getBoolean(9);
                return new Granted(rs.getLong(2), acquiredAt, acquiredAt.plus(ttlMicros, ChronoUnit.MICROS), tookOver);
              }
              LeaseOwner owner =
                  new LeaseOwner(
                      rs.getObject(4, UUID.class), rs.getLong(2), rs.getString(5), acquiredAt,
                      StatementRunner.instant(rs, 6), releasedAt(rs, 7));
              return new Refused(statusOf(key, owner, StatementRunner.instant(rs, 8)));
            });
    if (answer != null) {
      return answer;
    }
    // The key has no row yet: its first acquire inserts it (once per key, see LeaseSql#acquireNew).
    return runner.execute(
        sql.acquireNew,
        () -> "acquire " + key,
        ps -> LeaseSql.bindAcquireNew(ps, key, runId, holder, ttlMicros),
        (rs, opened) -> {
          if (!rs.next()) {
            return new Refused(null);
          }
          Instant acquiredAt = StatementRunner.instant(rs, 2);
          return new Granted(rs.getLong(1), acquiredAt, acquiredAt.plus(ttlMicros, ChronoUnit.MICROS), false);
        });
  }

  /** The key's status by the database clock. */
  LeaseStatus status(LeaseKey key) {
    return runner.execute(
        sql.status,
        () -> "read status of " + key,
        ps -> {
          ps.setString(1, key.accountId());
          ps.setString(2, key.sessionId());
        },
        (rs, opened) -> {
          rs.next();
          Instant now = StatementRunner.instant(rs, 1);
          UUID runId = rs.getObject(2, UUID.class);
          if (runId == null) {
            return new LeaseStatus(key, LeaseStatus.State.FREE, Optional.empty(), now, now);
          }
          LeaseOwner owner =
              new LeaseOwner(
                  runId, rs.getLong(3), rs.getString(4), StatementRunner.instant(rs, 5),
                  StatementRunner.instant(rs, 6), releasedAt(rs, 7));
          return statusOf(key, owner, now);
        });
  }

  /** At most {@code limit} live leases of the table, soonest expiry first. */
  List<LeaseStatus> held(int limit) {
    return runner.execute(
        sql.held,
        () -> "list held leases",
        ps -> ps.setInt(1, limit),
        (rs, opened) -> {
          List<LeaseStatus> rows = new ArrayList<>();
          while (rs.next()) {
            LeaseOwner owner =
                new LeaseOwner(
                    rs.getObject(2, UUID.class), rs.getLong(3), rs.getString(4),
                    StatementRunner.instant(rs, 5), StatementRunner.instant(rs, 6), releasedAt(rs, 7));
            rows.add(statusOf(LeaseKey.of(rs.getString(8), rs.getString(9)), owner, StatementRunner.instant(rs, 1)));
          }
          return rows;
        });
  }

  /**
   * Refuses, naming the repair, if this store's sequence is not the one its table's fences come
   * from ({@link FenceSource}), checked again on every call (the health probe).
   */
  void confirmFenceSource() {
    fenceSource.check();
  }

  /** The database clock, read through the lease table. */
  Instant databaseTime() {
    return runner.execute(
        sql.probe,
        () -> "read the database time",
        ps -> {},
        (rs, opened) -> {
          rs.next();
          return StatementRunner.instant(rs, 1);
        });
  }

  /** The database's durability and replication settings, judged. */
  FailoverSafety failoverSafety() {
    return runner.execute(
        sql.failoverSafety,
        () -> "read the failover settings",
        ps -> {},
        (rs, opened) -> {
          rs.next();
          return FailoverSafety.judge(
              rs.getBoolean(1), rs.getString(2), rs.getString(3), rs.getInt(4), rs.getInt(5), rs.getBoolean(6));
        });
  }

  /**
   * Releases the token's run if it still holds the key, the key unavailable until {@code
   * holdUntil} if one is given; NOT_HELD changes nothing.
   */
  ReleaseResult release(FencingToken token, Optional<Instant> holdUntil) {
    OffsetDateTime hold = holdUntil.map(h -> h.atOffset(ZoneOffset.UTC)).orElse(null);
    ReleaseResult result =
        runner.execute(
            hold == null ? sql.release : sql.releaseHolding,
            () -> "release " + token,
            ps -> {
              int i = 1;
              if (hold != null) {
                ps.setObject(i++, hold, Types.TIMESTAMP_WITH_TIMEZONE);
              }
              ps.setString(i++, token.key().accountId());
              ps.setString(i++, token.key().sessionId());
              ps.setObject(i++, token.runId());
              ps.setLong(i, token.fence());
            },
            (rs, opened) -> {
              if (rs.next()) {
                return new ReleaseResult(ReleaseResult.Outcome.RELEASED, Optional.of(StatementRunner.instant(rs, 1)));
              }
              // A release that changed nothing answers with the opening's time; a statement sent
              // without one (session timeouts) reads the time below, off the common path.
              return sql.sessionTimeouts == null
                  ? new ReleaseResult(ReleaseResult.Outcome.NOT_HELD, Optional.of(opened.get()))
                  : null;
            });
    if (publisher != null && result != null && result.released()) {
      publisher.publish(ChangePublisher.Event.RELEASED, token.key(), token.fence());
    }
    return result != null ? result : new ReleaseResult(ReleaseResult.Outcome.NOT_HELD, Optional.of(databaseTime()));
  }

  /** Ends whichever run holds the key, and records it in the audit table in the same statement. */
  ReleaseResult forceRelease(LeaseKey key, String caller, String reason) {
    long[] fence = {0};
    ReleaseResult result = runner.execute(
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
          fence[0] = rs.getLong(2);
          return new ReleaseResult(
              rs.getObject(1) != null ? ReleaseResult.Outcome.RELEASED : ReleaseResult.Outcome.NOT_HELD,
              Optional.of(StatementRunner.instant(rs, 3)));
        });
    if (publisher != null && result.released()) {
      publisher.publish(ChangePublisher.Event.RELEASED, key, fence[0]);
    }
    return result;
  }


  /**
   * Deletes rows of leases dead for at least {@code deadFor}, one batch per statement in key
   * order, then records the sweep in the audit table. Why that keeps fences increasing is argued
   * next to {@link LeaseSql#sweep}; {@link LeaseAdmin#sweep} checks the bound on {@code deadFor}.
   */
  long sweep(Duration deadFor, String caller) {
    long age = StatementRunner.micros(deadFor);
    long total = 0;
    // Keys are at least one character long: every key sorts after ("", "").
    SweepBatch batch = new SweepBatch(0, SWEEP_BATCH, "", "");
    while (batch.walked() == SWEEP_BATCH) {
      SweepBatch previous = batch;
      batch =
          runner.execute(
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
    runner.execute(
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

  /**
   * A key's state from its row and the database's now: free once released, held until expiry,
   * then draining until the takeover delay has passed.
   */
  private LeaseStatus statusOf(LeaseKey key, LeaseOwner owner, Instant now) {
    if (owner.releasedAt() != null) {
      // A release that holds the key until an instant (releaseHolding) keeps its expiry there,
      // after the release: draining till then.
      if (owner.expiresAt().isAfter(owner.releasedAt()) && owner.expiresAt().isAfter(now)) {
        return new LeaseStatus(key, LeaseStatus.State.DRAINING, Optional.of(owner), now, owner.expiresAt());
      }
      return new LeaseStatus(key, LeaseStatus.State.FREE, Optional.of(owner), now, owner.releasedAt());
    }
    Instant acquirable = owner.expiresAt().plus(takeoverDelay);
    if (owner.expiresAt().isAfter(now)) {
      return new LeaseStatus(key, LeaseStatus.State.HELD, Optional.of(owner), now, acquirable);
    }
    LeaseStatus.State state = acquirable.isAfter(now) ? LeaseStatus.State.DRAINING : LeaseStatus.State.FREE;
    return new LeaseStatus(key, state, Optional.of(owner), now, acquirable);
  }

  private static Instant releasedAt(ResultSet rs, int column) throws SQLException {
    return rs.getObject(column) == null ? null : StatementRunner.instant(rs, column);
  }
}
