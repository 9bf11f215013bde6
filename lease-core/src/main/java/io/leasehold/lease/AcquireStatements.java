package io.leasehold.lease;

import io.leasehold.fencing.LeaseKey;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.UUID;

/**
 * The acquire, each statement with its binding and the reading of its row: one statement for a key
 * that has a row, and the insert of a key's first acquire. Either grants the key to this run, with
 * a fence drawn only then, or refuses and reports the holder's row.
 *
 * <p>Thread-safe (it holds no mutable state).
 */
final class AcquireStatements {
  /**
   * Acquire of a key that has a row: every key after its first acquire, since release marks the row
   * and only the sweep deletes rows, long after they ended.
   *
   * <p>{@code upd} is a plain single-table {@code UPDATE} of the key's row where it is free
   * (released, and past any hold; or expired past the takeover delay). A row that is not free in
   * the statement's snapshot fails the condition without being locked or written: a refusal is two
   * primary-key reads (the update's and the holder's row below), with no row lock, no write, no WAL
   * flush and no fence drawn. A row that looks free is locked; if a contender holds the lock (it is
   * taking the key over), the update waits for it, bounded by the lock timeout, and then checks the
   * condition again on the contender's committed version, which is held: refused. The wait is one
   * contender's commit; one that outlasts the lock timeout is answered Busy too ({@link
   * LeaseGrants}).
   *
   * <p>The fence (CONTRACT C3): {@code SET fence = GREATEST(v, l.fence + 1)}, where {@code v} is a
   * value drawn from the sequence. The {@code SET} list is computed on the version the statement
   * updates, which it holds locked, so {@code l.fence + 1} is one more than the fence of every
   * earlier holder of the row, committed before this lock was granted: the row's fence rises with
   * every grant, whenever {@code v} was drawn. On one PostgreSQL the draw is {@code nextval} in the
   * {@code SET} list, computed only for a row that passes the condition in the statement's
   * snapshot, so a refusal of a key seen held draws nothing (one that saw the key free and then
   * lost its row lock to a contender has drawn a value, and a row checked again after a lock wait
   * draws again; the floor decides either way). On Citus ({@link #acquireOnCitus}) it sits in a CTE
   * {@code f} nested in the update's own CTE: Citus refuses a volatile function in an {@code
   * UPDATE} of a distributed table and runs the CTE on the coordinator before it routes the update
   * to the key's shard (docs/scale-out.md). Nested, because Citus sends a top-level {@code SELECT}
   * about one key to the key's worker whole, its CTEs included: with {@code f} beside {@code upd}
   * the worker drew from its own copy of the sequence (Citus copies a sequence owned by a
   * distributed table to every worker, each with a range of its own), a fence from another series
   * than every other grant's; as the update's own CTE it is planned with the update, on the
   * coordinator, and every acquire of an existing key draws a value. A value drawn before the lock
   * may be lower than the row's fence (a contender drew later and locked first, then released): the
   * floor decides, and the key's fence can then be ahead of the sequence, which is why the sweep
   * only deletes a row whose fence the sequence has passed ({@link SweepStatements#sweep}). The
   * floor also keeps a key's fence rising whatever happened to the sequence since the store checked
   * it at start-up: an outside check restarted it lower ({@code ALTER SEQUENCE ... RESTART}),
   * raised its cache while stores ran, and bound another sequence to the table, and each time a
   * key's next fence came out lower than, or equal to, one it had already had. A key with no row
   * (its first acquire, or the first after a sweep) draws above the fence floor instead ({@link
   * #acquireNew}).
   *
   * <p>The second part returns the row as the snapshot saw it when nothing was updated: the holder.
   * (A free-looking row there means a contender won the lock; LeaseGrants then reads the key's
   * status once more.) No row at all: the key has no row yet, and {@link #acquireNew} is sent
   * instead (the one case of a second round trip, once per key).
   *
   * <p>Expiry and takeover delay are decided by the statement's single database time. That time is
   * read when the statement starts, before its snapshot and its row lock, so a release can commit
   * with a later time than ours and still be seen: the new lease then starts at the release's time
   * ({@code GREATEST}), so that no lease ever starts before its predecessor ended (the torture
   * run's checker found the microseconds of overlap this prevents). {@code took_over} records
   * whether the run replaced an expired lease rather than a released one (live status tells
   * takeovers apart by it).
   *
   * <p>Nothing is notified from here even in a publishing store: a notifying transaction takes a
   * lock for the whole server at commit and holds it through its WAL flush, which serialized every
   * publishing store's acquires and releases (docs/performance.md); {@link ChangePublisher} sends
   * the change after the commit.
   *
   * <p>Parameters: see {@link #bindAcquire}. Returns one row, its columns below: granted (true),
   * then fence and start (the expiry is the start plus the ttl, exactly); or not granted (false),
   * then the holder's fence, start, run id, holder, expiry and release time as the statement's
   * snapshot saw them; and the statement's time; for a publishing store, then whether the grant was
   * a takeover. No row: the key has no row.
   *
   * <p>This is the text for one PostgreSQL. Citus gets {@link #acquireOnCitus}, the same statement
   * in forms it accepts, which cost one PostgreSQL more to run: with them (and the release's), a
   * backend executed 7% more instructions per acquire and release, and 8% more per refusal
   * (docs/performance.md, "Instructions per attempt").
   */
  final String acquire;

  /**
   * {@link #acquire} for a Citus coordinator: the fence drawn in the nested CTE {@code f} and the
   * expiry computed through {@link SqlTime#plusMicros} (Citus refuses a stable operator applied to
   * a column in an {@code UPDATE}). Same parameters, same columns.
   */
  final String acquireOnCitus;

  /**
   * {@link #acquire}'s update alone, for one PostgreSQL and a key this store has been granted and
   * never found taken ({@link AcquireForms}): the same {@code UPDATE}, condition and fence rule,
   * without the holder's part, whose plan is started on every acquire, granted or not: an acquire
   * and release cost a backend a fifth fewer instructions with this text (docs/performance.md,
   * "Instructions per attempt"). Its first six parameters are {@link #acquire}'s ({@link
   * #bindGrantIfFree}). Returns the fence (column 1), start (column 2) and, for a publishing store,
   * whether the grant was a takeover (column 3) if it granted; no row otherwise, and then {@link
   * #acquire} is sent: the key is taken, or has no row.
   */
  final String grantIfFree;

  // The acquire's columns: the granted branch fills 1-3, 8 and 9, the refused one all of them.
  private static final int GRANTED = 1;
  private static final int FENCE = 2;
  private static final int ACQUIRED_AT = 3;
  private static final OwnerColumns HOLDER_ROW = new OwnerColumns(4, FENCE, 5, ACQUIRED_AT, 6, 7);
  private static final int NOW = 8;

  /** There only when the store publishes. */
  private static final int TOOK_OVER = 9;

  /**
   * The first acquire of a key ({@link #acquire} found no row): insert it, the fence drawn in the
   * insert, above the fence floor: a key whose row the sweep deleted has no fence of its own left
   * to rise above, and the floor is at least its last one ({@link SweepStatements#sweep}), whatever
   * was done to the sequence since (CONTRACT C3). {@code max} makes the floor one value even if its
   * row was deleted (null: {@code GREATEST} ignores it). An {@code INSERT ... SELECT}, not {@code
   * VALUES}: Citus refuses a subquery in {@code VALUES}, and runs this on the coordinator, where
   * the sequence is, and the floor (a reference table) has a copy. Two first acquires of one key
   * race on the primary key: the loser waits for the winner's commit (bounded by the lock timeout),
   * its insert does nothing (its drawn value stays unused, the one case where a refusal uses up a
   * sequence value) and it is refused. Parameters: see {@link #bindAcquireNew}. Returns the fence
   * (column 1) and start (column 2) if it inserted, no row otherwise.
   */
  final String acquireNew;

  private final StatementRunner runner;
  private final AcquireForms forms = new AcquireForms(AcquireForms.CAPACITY);
  private final ReadStatements reads;
  private final boolean publishing;
  private final long takeoverDelayMicros;

  /**
   * @param runner where the statements run; null when only their texts are wanted
   * @param reads how a refusal's holder row becomes a status
   * @param publishing true when the store publishes its changes: the acquire then also returns
   *     whether the grant took an expired lease over
   */
  AcquireStatements(
      StatementRunner runner,
      StatementSettings settings,
      ReadStatements reads,
      boolean publishing,
      Duration takeoverDelay) {
    this.runner = runner;
    this.reads = reads;
    this.publishing = publishing;
    this.takeoverDelayMicros = StatementRunner.micros(takeoverDelay);
    String t = settings.schema().table();
    String seq = settings.schema().sequence();
    String begin = settings.opening();
    acquire = acquireText(begin, t, seq, publishing, false);
    acquireOnCitus = acquireText(begin, t, seq, publishing, true);
    grantIfFree = begin + updateText(t, seq, publishing, false);
    acquireNew =
        begin
            + "INSERT INTO "
            + t
            + " AS l (account_id, session_id, run_id, fence, holder,"
            + " acquired_at, renewed_at, expires_at, released_at, took_over) "
            + "SELECT ?, ?, ?, GREATEST(nextval('"
            + seq
            + "'), floor.fence + 1), ?, statement_timestamp(), statement_timestamp(),"
            + " statement_timestamp() + ? * interval '1 microsecond', NULL, false"
            + " FROM (SELECT max(fence) AS fence FROM "
            + t
            + "_fence_floor) AS floor "
            + "ON CONFLICT (account_id, session_id) DO NOTHING "
            + "RETURNING l.fence, l.acquired_at";
  }

  /**
   * The text of {@link #acquire} (one PostgreSQL) or {@link #acquireOnCitus}. They differ only in
   * how the fence is drawn and the expiry computed; parameters and columns are the same.
   */
  private static String acquireText(
      String begin, String t, String seq, boolean publishing, boolean citus) {
    // A publishing store says "taken_over" rather than "acquired" when the grant ended an
    // expired lease: the ninth column, false on a refusal.
    return begin
        + "WITH upd AS ("
        + (citus ? "WITH f AS (SELECT nextval('" + seq + "') AS v) " : "")
        + updateText(t, seq, publishing, citus)
        + ") SELECT true, fence, acquired_at, NULL::uuid, NULL::text, NULL::timestamptz,"
        + " NULL::timestamptz, statement_timestamp()"
        + (publishing ? ", took_over" : "")
        + " FROM upd UNION ALL SELECT false, l.fence, l.acquired_at, l.run_id, l.holder,"
        + " l.expires_at, l.released_at, statement_timestamp()"
        + (publishing ? ", false" : "")
        + " FROM "
        + t
        + " AS l WHERE l.account_id = ? AND l.session_id = ? AND NOT EXISTS (SELECT 1 FROM upd)";
  }

  /**
   * The update of a free row, the part {@link #acquire}, {@link #acquireOnCitus} and {@link
   * #grantIfFree} share; on Citus it reads the fence drawn by the CTE {@code f} around it.
   */
  private static String updateText(String t, String seq, boolean publishing, boolean citus) {
    String start = "GREATEST(statement_timestamp(), l.released_at)";
    // Released, and past any hold the release asked for (releaseHolding keeps expires_at ahead
    // of released_at until then; a plain release sets both to its time, which may lie a little
    // after a concurrent statement's own time), or expired past the takeover delay.
    String free =
        "((l.released_at IS NOT NULL AND (l.expires_at <= l.released_at OR l.expires_at <= statement_timestamp()))"
            + " OR l.expires_at <= statement_timestamp() - ? * interval '1 microsecond')";
    return "UPDATE "
        + t
        + " AS l SET run_id = ?, fence = GREATEST("
        + (citus ? "(SELECT v FROM f)" : "nextval('" + seq + "')")
        + ", l.fence + 1), holder = ?, acquired_at = "
        + start
        + ", renewed_at = "
        + start
        + ", expires_at = "
        + (citus ? SqlTime.plusMicros(start, "?") : start + " + ? * interval '1 microsecond'")
        + ", released_at = NULL, took_over = l.released_at IS NULL "
        + "WHERE l.account_id = ? AND l.session_id = ? AND "
        + free
        + " RETURNING l.fence, l.acquired_at"
        + (publishing ? ", l.took_over" : "");
  }

  /** The acquire's answer: granted, or refused with the holder's row as it saw it. */
  sealed interface Answer {}

  /** This run got the key; the expiry is exact (the statement set it to acquiredAt + ttl). */
  record Granted(long fence, Instant acquiredAt, Instant expiresAt, boolean tookOver)
      implements Answer {}

  /**
   * Someone else holds or is taking the key. {@code seen} is null when the statement saw no row:
   * another first acquire inserted the key meanwhile.
   */
  record Refused(LeaseStatus seen) implements Answer {}

  /**
   * Runs the acquire for a new run, in the form {@link AcquireForms} gives the key: {@link
   * #grantIfFree} first, or the key's row first ({@link ReadStatements#row}, answered Busy if it
   * shows the key held or draining), or neither; then {@link #acquire} if the key is still to be
   * decided, and {@link #acquireNew} if it has no row yet.
   *
   * @throws LeaseStoreException if it fails, including a lock wait past the lock timeout (which the
   *     caller turns into Busy)
   */
  Answer acquire(LeaseKey key, UUID runId, String holder, Duration leaseTtl) {
    long ttlMicros = StatementRunner.micros(leaseTtl);
    AcquireForms.Form form = forms.formOf(key);
    if (form == AcquireForms.Form.UPDATE_ALONE && !runner.knownPlain()) {
      // The update alone has no Citus form; the read has one text for both (a router query).
      form = AcquireForms.Form.FULL;
    }
    if (form == AcquireForms.Form.UPDATE_ALONE) {
      Granted granted;
      try {
        granted =
            runner.execute(
                grantIfFree,
                () -> "acquire " + key,
                ps -> bindGrantIfFree(ps, key, runId, holder, ttlMicros, takeoverDelayMicros),
                (rs, opened) -> rs.next() ? granted(rs, 1, 2, 3, ttlMicros) : null);
      } catch (LeaseStoreException e) {
        if (StatementRunner.isLockTimeout(e)) {
          // A contender held the row past the lock timeout: it was taking the key, which the
          // caller answers Busy. Found taken, as a refusal would have shown.
          forms.taken(key);
        }
        throw e;
      }
      if (granted != null) {
        return granted;
      }
      forms.taken(key);
    } else if (form == AcquireForms.Form.READ_FIRST) {
      // Held or draining in the read's snapshot: the full acquire would refuse it on the same
      // row (the update's condition is this status's FREE, ReadStatements#statusOf), and answer
      // this very status. Free, or no row: only the update can grant it.
      LeaseStatus seen = reads.statusIfRow(key);
      if (seen != null && seen.state() != LeaseStatus.State.FREE) {
        forms.taken(key);
        return new Refused(seen);
      }
    }
    Answer answer = acquireWithHolder(key, runId, holder, ttlMicros);
    if (answer instanceof Granted) {
      forms.granted(key);
    } else {
      forms.taken(key);
    }
    return answer;
  }

  /** {@link #acquire}, then {@link #acquireNew} if the key has no row. */
  private Answer acquireWithHolder(LeaseKey key, UUID runId, String holder, long ttlMicros) {
    Answer answer =
        runner.execute(
            acquire,
            acquireOnCitus,
            () -> "acquire " + key,
            ps -> bindAcquire(ps, key, runId, holder, ttlMicros, takeoverDelayMicros),
            (rs, opened) -> {
              if (!rs.next()) {
                return null;
              }
              if (rs.getBoolean(GRANTED)) {
                return granted(rs, FENCE, ACQUIRED_AT, TOOK_OVER, ttlMicros);
              }
              return new Refused(
                  reads.statusOf(key, HOLDER_ROW.read(rs), StatementRunner.instant(rs, NOW)));
            });
    if (answer != null) {
      return answer;
    }
    return runner.execute(
        acquireNew,
        () -> "acquire " + key,
        ps -> bindAcquireNew(ps, key, runId, holder, ttlMicros),
        (rs, opened) -> rs.next() ? granted(rs, 1, 2, 0, ttlMicros) : new Refused(null));
  }

  /**
   * A grant as a statement returned it; the expiry is exact (the statement set it to the start plus
   * the TTL). {@code tookOverColumn} is read only for a publishing store; 0: not a takeover.
   */
  private Granted granted(
      ResultSet rs, int fenceColumn, int startColumn, int tookOverColumn, long ttlMicros)
      throws SQLException {
    Instant acquiredAt = StatementRunner.instant(rs, startColumn);
    boolean tookOver = publishing && tookOverColumn > 0 && rs.getBoolean(tookOverColumn);
    return new Granted(
        rs.getLong(fenceColumn),
        acquiredAt,
        acquiredAt.plus(ttlMicros, ChronoUnit.MICROS),
        tookOver);
  }

  /** Binds {@link #acquire}'s eight parameters: the new run's values, then the key twice. */
  static void bindAcquire(
      PreparedStatement ps,
      LeaseKey key,
      UUID runId,
      String holder,
      long ttlMicros,
      long takeoverDelayMicros)
      throws SQLException {
    bindGrantIfFree(ps, key, runId, holder, ttlMicros, takeoverDelayMicros);
    StatementRunner.bindKey(ps, 7, key);
  }

  /** Binds {@link #grantIfFree}'s six parameters, which are {@link #acquire}'s first six. */
  static void bindGrantIfFree(
      PreparedStatement ps,
      LeaseKey key,
      UUID runId,
      String holder,
      long ttlMicros,
      long takeoverDelayMicros)
      throws SQLException {
    ps.setObject(1, runId);
    ps.setString(2, holder);
    ps.setLong(3, ttlMicros);
    StatementRunner.bindKey(ps, 4, key);
    ps.setLong(6, takeoverDelayMicros);
  }

  /** Binds {@link #acquireNew}'s five parameters. */
  static void bindAcquireNew(
      PreparedStatement ps, LeaseKey key, UUID runId, String holder, long ttlMicros)
      throws SQLException {
    StatementRunner.bindKey(ps, 1, key);
    ps.setObject(3, runId);
    ps.setString(4, holder);
    ps.setLong(5, ttlMicros);
  }
}
