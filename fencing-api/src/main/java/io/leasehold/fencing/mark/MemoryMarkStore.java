package io.leasehold.fencing.mark;

import io.leasehold.fencing.Admission;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.MarkReset;
import io.leasehold.fencing.StaleFenceException;
import io.leasehold.fencing.internal.Arguments;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;

/**
 * The memory medium of {@link MarkStore}: marks and resets that live in this process and are lost
 * with it. The in-memory guard and the tool journals keep their marks here (the file journal loads
 * its own into one as it reads its files), so the memory medium's rules are written once.
 *
 * <p>Each key's mark has its own lock; keys never contend. {@link #admitThen} runs the caller's
 * effect under it, so no lower fence can be admitted between the check and the effect. The unit of
 * work is that lock, which the store takes itself: pass null as the unit.
 *
 * <h2>Bounded memory</h2>
 *
 * A store made by {@link #bounded(int)} keeps at most that many keys. Past it, it forgets keys, and
 * forgetting is safe (CONTRACT C16): per account it keeps a <em>floor</em>, the highest mark it
 * ever forgot of that account, and a key it does not remember starts at its account's floor, so a
 * stale writer of a forgotten key is still refused (an old but live run may be refused too, the
 * safe side). A new key is made room for by forgetting up to a tenth of the bound's worth of keys
 * of its own account, or, for an account with no key remembered, of the account that holds the most
 * (CONTRACT C19: one account's admissions never raise another's floor, unless that other holds the
 * most), those held longest first; the choice is O(1) amortised ({@link RememberedKeys}). The new
 * key starts at its account's floor as it was before that room was made. An admission that is
 * refused changes nothing: a key not remembered whose fence is below its account's floor is refused
 * before any room is made. A key whose lock is held (its effect running, on this thread or another)
 * is never forgotten under it, nor waited for (the key stays, one past the bound per such key:
 * waiting could hang two effects that each admit a new key from inside); the next new key makes
 * room for that excess too, and {@link #admitThen} forgets what is still over the bound as its
 * effect ends. Under concurrent admissions of new keys the bound may also be passed, for a moment,
 * by one key per thread making room. The floors take one entry per account that ever had a key
 * forgotten, which the bound does not limit. A store made by {@link #unbounded()} forgets nothing.
 *
 * <p>A reset to 0 keeps the key, with a mark of 0: {@link #read} shows none, and a journal that
 * writes {@link #snapshot()} keeps the 0 (so older fences of the calls it keeps never come back as
 * the key's mark). The floor of the key's account still applies to keys forgotten later.
 *
 * <p>Thread-safe.
 */
public final class MemoryMarkStore implements MarkStore<Void> {
  private final ConcurrentHashMap<LeaseKey, Mark> marks = new ConcurrentHashMap<>();

  /** Per account: the highest mark forgotten. */
  private final ConcurrentHashMap<String, AtomicLong> floors = new ConcurrentHashMap<>();

  /** Which keys are remembered, per account in order; guarded by its own monitor. */
  private final RememberedKeys book = new RememberedKeys();

  private final int maxKeys;

  /** Guarded by its own monitor. */
  private final List<MarkReset> resets = new ArrayList<>();

  private MemoryMarkStore(int maxKeys) {
    this.maxKeys = maxKeys;
  }

  /**
   * A store that remembers at most {@code maxKeys} keys, forgetting the oldest of an account behind
   * a floor past that (see the class documentation).
   *
   * @param maxKeys at least 1
   * @return the store
   * @throws IllegalArgumentException if {@code maxKeys} is below 1
   */
  public static MemoryMarkStore bounded(int maxKeys) {
    return new MemoryMarkStore((int) Arguments.atLeast(maxKeys, 1, "maxKeys"));
  }

  /**
   * A store that forgets no key: for a journal whose calls keep their keys anyway.
   *
   * @return the store
   */
  public static MemoryMarkStore unbounded() {
    return new MemoryMarkStore(Integer.MAX_VALUE);
  }

  /**
   * Admits a token and, while no other token of its key can be admitted, runs {@code effect} with
   * the admission. If the effect throws, the mark stays raised: a newer run has shown up, and the
   * older one must not come back.
   *
   * @param token a verified token
   * @param effect what to do once admitted, under the key's lock
   * @param <T> the effect's result
   * @return what the effect returned
   * @throws StaleFenceException if the fence is below the key's mark; the effect did not run
   */
  public <T> T admitThen(FencingToken token, Function<Admission, T> effect) {
    try {
      return withMark(
          token.key(),
          token,
          mark -> {
            if (token.fence() < mark.highest) {
              throw new StaleFenceException(token, mark.highest);
            }
            Admission admission = new Admission(token, mark.highest);
            mark.highest = token.fence();
            return effect.apply(admission);
          });
    } finally {
      // The effect may have admitted new keys while its own key could not be forgotten: once no
      // effect of this thread runs, the store comes back within its bound.
      if (marks.size() > maxKeys) {
        trim();
      }
    }
  }

  /** {@inheritDoc} The unit is ignored (pass null): the store takes the key's lock itself. */
  @Override
  public Admission admit(Void unit, FencingToken token) {
    Arguments.required(token, "token");
    // admitThen without an effect, written out: no lambda per admission on the hot path.
    while (true) {
      Mark mark = markOf(token.key(), token);
      mark.lock.lock();
      try {
        if (mark.forgotten) {
          marks.remove(token.key(), mark); // as in withMark
          continue;
        }
        if (token.fence() < mark.highest) {
          throw new StaleFenceException(token, mark.highest);
        }
        Admission admission = new Admission(token, mark.highest);
        mark.highest = token.fence();
        return admission;
      } finally {
        mark.lock.unlock();
      }
    }
  }

  /**
   * {@inheritDoc} A key the store does not remember reads as its account's floor.
   *
   * @throws IllegalArgumentException if {@code key} is null
   */
  @Override
  public OptionalLong read(Void unit, LeaseKey key) {
    Arguments.required(key, "key");
    Mark mark = marks.get(key);
    long highest;
    if (mark == null) {
      highest = floorOf(key.accountId());
    } else {
      mark.lock.lock();
      try {
        highest = mark.highest;
      } finally {
        mark.lock.unlock();
      }
    }
    return highest == 0 ? OptionalLong.empty() : OptionalLong.of(highest);
  }

  /**
   * {@inheritDoc} The mark it replaced is the key's, or its account's floor if it was forgotten.
   */
  @Override
  public MarkReset reset(
      Void unit, LeaseKey key, long newMark, String operator, String reason, Instant at) {
    Arguments.required(key, "key");
    return withMark(
        key,
        mark -> {
          MarkReset reset = new MarkReset(key, mark.highest, newMark, operator, reason, at);
          mark.highest = newMark;
          record(reset);
          return reset;
        });
  }

  @Override
  public List<MarkReset> resets(Void unit) {
    synchronized (resets) {
      return List.copyOf(resets);
    }
  }

  /**
   * Replays a reset recorded in a durable medium (a journal being read back): sets the key's mark
   * and records the reset as it was, dated when it was made.
   *
   * @param reset the recorded reset
   */
  public void restore(MarkReset reset) {
    Arguments.required(reset, "reset");
    withMark(
        reset.key(),
        mark -> {
          mark.highest = reset.newMark();
          record(reset);
          return reset;
        });
  }

  /**
   * Sets a key's mark as a durable medium recorded it, without checking it against the mark here
   * and without recording a reset: for a journal loading what it admitted before.
   *
   * @param key the key
   * @param mark the mark, 0 or more
   */
  public void restore(LeaseKey key, long mark) {
    Arguments.required(key, "key");
    Arguments.atLeast(mark, 0, "mark");
    withMark(key, m -> m.highest = mark);
  }

  /**
   * Every remembered key's mark, a reset key's 0 included: what a journal writes when it rewrites
   * its marks. Not one atomic view while admissions go on.
   *
   * @return the marks
   */
  public Map<LeaseKey, Long> snapshot() {
    Map<LeaseKey, Long> out = new HashMap<>();
    for (Mark mark : marks.values()) {
      mark.lock.lock();
      try {
        if (!mark.forgotten) {
          out.put(mark.key, mark.highest);
        }
      } finally {
        mark.lock.unlock();
      }
    }
    return Map.copyOf(out);
  }

  /**
   * How many keys the store remembers now.
   *
   * @return the count, at most the bound (see the class documentation for concurrent admissions)
   */
  public int rememberedKeys() {
    return marks.size();
  }

  private void record(MarkReset reset) {
    synchronized (resets) {
      resets.add(reset);
    }
  }

  /**
   * Runs {@code body} on the key's mark under the key's lock, on a mark created at the account's
   * floor if the key is not remembered. A mark forgotten between the lookup and the lock is dropped
   * and looked up again, so the body never changes a mark that has left the store.
   */
  private <T> T withMark(LeaseKey key, Function<Mark, T> body) {
    return withMark(key, null, body);
  }

  /**
   * As {@link #withMark(LeaseKey, Function)}, for the admission of {@code token} if not null: see
   * {@link #markOf}.
   */
  private <T> T withMark(LeaseKey key, FencingToken token, Function<Mark, T> body) {
    while (true) {
      Mark mark = markOf(key, token);
      mark.lock.lock();
      try {
        if (mark.forgotten) {
          marks.remove(key, mark); // forgotten meanwhile: the retry takes a new mark at the floor
          continue;
        }
        return body.apply(mark);
      } finally {
        mark.lock.unlock();
      }
    }
  }

  /**
   * The key's mark, created at its account's floor if the key is not remembered. For the admission
   * of a token (not null), a key not remembered whose account's floor is above the token's fence is
   * refused here, before anything changes: a refused call makes the store forget nothing (CONTRACT
   * C13, C21).
   *
   * @throws StaleFenceException if the token is below the floor of a key not remembered
   */
  private Mark markOf(LeaseKey key, FencingToken token) {
    Mark mark = marks.get(key);
    return mark != null ? mark : remember(key, token);
  }

  /**
   * Creates the key's mark at its account's floor, unless another thread just did. When the store
   * is full, it takes keys to forget ({@link RememberedKeys#take}) in the same step, enough to come
   * back within the bound, and forgets them once out of the bookkeeping's lock, passing over any
   * whose lock is held (an effect running under it): nothing waits for another key's effect. The
   * new key's mark is set before those keys raise its account's floor, which is safe: their marks
   * were never the new key's.
   */
  private Mark remember(LeaseKey key, FencingToken token) {
    Mark mark;
    RememberedKeys.Node victims = null;
    synchronized (book) {
      mark = marks.get(key);
      if (mark != null) {
        return mark;
      }
      long floor = floorOf(key.accountId());
      if (token != null && token.fence() < floor) {
        throw new StaleFenceException(token, floor);
      }
      int over = book.total() + 1 - maxKeys;
      if (over > 0) {
        // A tenth of the bound of one account at a time, so that a full store takes keys only once
        // in so many admissions; more if it is past the bound (keys kept for an effect that ran).
        victims = book.take(key.accountId(), Math.max(over, Math.max(1, maxKeys / 10)), over);
      }
      mark = new Mark(key, floor);
      marks.put(key, mark);
      book.add(mark);
    }
    if (victims != null) {
      forgetTaken(victims);
    }
    return mark;
  }

  /**
   * Brings a store past its bound (by keys kept for effects that have ended) back within it,
   * forgetting its oldest keys of the accounts that hold the most.
   */
  private void trim() {
    RememberedKeys.Node victims;
    synchronized (book) {
      int over = book.total() - maxKeys;
      victims = over > 0 ? book.take(null, over, over) : null;
    }
    if (victims != null) {
      forgetTaken(victims);
    }
  }

  /**
   * Forgets the keys taken from the bookkeeping, then settles their count. A key whose lock is
   * held, by an effect on this thread (which now admits another key from inside it) or by another
   * thread, is kept and filed again: forgetting a key while its effect runs would let a newer run
   * of it act at the same time, and waiting for it could wait forever.
   */
  private void forgetTaken(RememberedKeys.Node victims) {
    int taken = 0;
    List<Mark> kept = List.of();
    for (RememberedKeys.Node v = victims; v != null; ) {
      Mark m = (Mark) v;
      v = v.next(); // read before the node can be filed again
      taken++;
      // Busy on this thread (its effect admits another key from inside) or on another: kept and
      // filed again, never waited for. Waiting could hang two writes that each admit new keys from
      // inside, each waiting for the other's key; the store is brought back within its bound by a
      // later admission, or when the write ends.
      if (m.lock.isHeldByCurrentThread() || !m.lock.tryLock()) {
        kept = kept.isEmpty() ? new ArrayList<>() : kept;
        kept.add(m);
      } else {
        try {
          forget(m);
        } finally {
          m.lock.unlock();
        }
      }
    }
    synchronized (book) {
      book.settle(taken);
      kept.forEach(book::add);
    }
  }

  private long floorOf(String account) {
    AtomicLong f = floors.get(account);
    return f == null ? 0 : f.get();
  }

  /**
   * Forgets a key taken from the bookkeeping, its lock held: raises its account's floor to the
   * key's mark before the mark leaves the map, so whoever recreates the key starts at or above it.
   */
  private void forget(Mark m) {
    if (!m.forgotten) {
      floors
          .computeIfAbsent(m.key.accountId(), a -> new AtomicLong())
          .accumulateAndGet(m.highest, Math::max);
      m.forgotten = true;
    }
    marks.remove(m.key, m);
  }

  /**
   * A key's mark and the key's lock: a {@link ReentrantLock} rather than the mark's monitor, so
   * that making room can pass over a key that is busy instead of waiting for it.
   */
  private static final class Mark extends RememberedKeys.Node {
    private final ReentrantLock lock = new ReentrantLock();
    private long highest;
    private boolean forgotten;

    Mark(LeaseKey key, long start) {
      super(key);
      this.highest = start;
    }
  }
}
