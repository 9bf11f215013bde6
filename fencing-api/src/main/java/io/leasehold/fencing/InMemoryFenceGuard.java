package io.leasehold.fencing;

import io.leasehold.fencing.internal.Arguments;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * A {@link FenceGuard} for a resource that lives in one process and whose state is lost with it.
 *
 * <pre>{@code
 * InMemoryFenceGuard guard = InMemoryFenceGuard.builder()
 *     .verifier(TokenVerifier.signedBy(keys)) // or TokenVerifier.trustEveryWriter()
 *     .build();
 * guard.runFenced(lease, () -> cache.put(k, v));
 * }</pre>
 *
 * <p>Each lease key has its own small lock; keys never contend with each other. {@link
 * #runFenced} runs the resource's own write under that lock, so no lower fence can be admitted
 * between the check and the write. Every token is verified before its mark is looked at.
 *
 * <h2>Bounded memory</h2>
 *
 * The guard keeps at most {@link Builder#maxKeys(int)} keys (default {@value #DEFAULT_MAX_KEYS}).
 * Past that it forgets keys, and forgetting is safe (CONTRACT C16): it keeps, per account, a
 * <em>floor</em>, the highest mark it ever forgot of that account, and a key it does not remember
 * starts at its account's floor. A stale writer of a forgotten key is therefore refused; the price
 * is that an old but live run of a forgotten key may be refused too, which is the safe side.
 *
 * <p>Forgetting stays within an account (CONTRACT C19): a new key is made room for by forgetting
 * keys of its own account, or, for an account with no key remembered, of the account that holds
 * the most. So one account's traffic never raises another account's floor, unless that other
 * account is itself the largest. Each time, up to a tenth of the bound's worth of that account's
 * keys are forgotten, the ones it has held longest first; among accounts that hold equally many,
 * the one that reached that count first gives way. The floors take one entry per account that
 * ever had a key forgotten (about 120 bytes each with a short account id), which the bound does
 * not limit.
 *
 * <p>Admitting a key the guard remembers takes that key's lock and nothing else. Admitting a key
 * it does not remember also takes, briefly, one lock for the whole guard, to file the key in
 * its account's queue; when the guard is full, that admission first forgets keys (waiting for
 * each one's lock, so never while another thread writes under it). Both are O(1) amortised,
 * whatever the number of keys or accounts: the accounts' queues and their counts are kept in
 * linked lists, and an account leaves them when its last key is forgotten (issue 46: before, each
 * admission into a full guard scanned every account and every key, about 2.8 ms at 40,000 keys).
 * A write that itself admits a new key never has its own key forgotten under it (the key stays,
 * past the bound if need be). Under concurrent admissions of new keys the bound may be passed, for
 * a moment, by one key per thread making room.
 *
 * <p>Thread-safe.
 */
public final class InMemoryFenceGuard implements FenceGuard {
  /** Default bound on remembered keys. */
  public static final int DEFAULT_MAX_KEYS = 100_000;

  /** The resource kind this guard reports to its {@link GuardListener}. */
  public static final String RESOURCE = "memory";

  private final ConcurrentHashMap<LeaseKey, Mark> marks = new ConcurrentHashMap<>();
  /** Per account: the highest mark forgotten. */
  private final ConcurrentHashMap<String, AtomicLong> floors = new ConcurrentHashMap<>();
  /** Which keys are remembered, per account in order; guarded by its own monitor. */
  private final RememberedKeys book = new RememberedKeys();
  private final GuardOptions options;
  private final int maxKeys;
  private final List<MarkReset> resets = new ArrayList<>();

  private InMemoryFenceGuard(GuardOptions options, int maxKeys) {
    this.options = options;
    this.maxKeys = maxKeys;
  }

  /**
   * A guard with the given verification and the defaults for everything else.
   *
   * @param verifier how tokens are verified
   * @return the guard
   */
  public static InMemoryFenceGuard create(TokenVerifier verifier) {
    return builder().verifier(verifier).build();
  }

  /**
   * Starts a builder.
   *
   * @return the builder
   */
  public static Builder builder() {
    return new Builder();
  }

  @Override
  public Admission admit(Fenced fenced) {
    return runFenced(fenced, admission -> admission);
  }

  /**
   * Admits the token and, while no other token of the same key can be admitted, runs the write.
   * If the write throws, the mark is still raised: a newer run has shown up, and the older one
   * must not come back.
   *
   * @param fenced the token or lease handle
   * @param write the resource's own write
   * @param <T> the write's result
   * @return what the write returned
   * @throws StaleFenceException if the fence is below the key's high-water mark; the write did not
   *     run
   * @throws TokenVerificationException if the token fails verification; nothing changed
   * @throws LeaseLostException if the presenter knows its lease is lost; the write did not run
   */
  public <T> T runFenced(Fenced fenced, Supplier<T> write) {
    Arguments.required(write, "write");
    return runFenced(fenced, admission -> write.get());
  }

  private <T> T runFenced(Fenced fenced, java.util.function.Function<Admission, T> write) {
    FencingToken token;
    try {
      token = options.verify(fenced);
    } catch (IllegalArgumentException e) {
      throw e;
    } catch (RuntimeException e) {
      options.report(GuardOptions.decisionOf(e));
      throw e;
    }
    while (true) {
      Mark mark = markOf(token.key());
      synchronized (mark) {
        if (mark.forgotten) {
          marks.remove(token.key(), mark); // forgotten meanwhile: the retry takes a new mark at the floor
          continue;
        }
        Admission admission;
        try {
          admission = mark.admit(token);
        } catch (StaleFenceException e) {
          options.report(GuardListener.Decision.STALE);
          throw e;
        }
        // Reported before the write: once admitted, the mark is raised whatever the write does.
        options.report(GuardListener.Decision.ADMITTED);
        return write.apply(admission);
      }
    }
  }

  private Mark markOf(LeaseKey key) {
    Mark mark = marks.get(key);
    return mark != null ? mark : remember(key);
  }

  /**
   * The key's mark, created at its account's floor if the key is not remembered. When the guard
   * is full, some keys are forgotten first ({@link RememberedKeys#take}). Their locks are taken
   * outside the bookkeeping's lock: a write running under one of them holds up only this thread,
   * never the guard's other admissions.
   */
  private Mark remember(LeaseKey key) {
    RememberedKeys.Node victims;
    synchronized (book) {
      Mark mark = marks.get(key);
      if (mark != null) {
        return mark;
      }
      if (book.total() < maxKeys) {
        return rememberNow(key);
      }
      victims = book.take(key.accountId(), Math.max(1, maxKeys / 10));
    }
    int taken = 0;
    List<Mark> kept = List.of();
    for (RememberedKeys.Node v = victims; v != null; ) {
      Mark m = (Mark) v;
      v = v.next(); // read before the node can be filed again
      taken++;
      if (Thread.holdsLock(m)) {
        // This thread is inside that key's write (and now admits another key from it):
        // forgetting the key would let a newer run of it write at the same time.
        kept = kept.isEmpty() ? new ArrayList<>() : kept;
        kept.add(m);
      } else {
        forget(m);
      }
    }
    synchronized (book) {
      book.settle(taken);
      kept.forEach(book::add);
      Mark mark = marks.get(key);
      // Made room (or found none to make): the key is remembered even if another thread has
      // filled that room meanwhile, so the bound is passed by at most one key per such thread.
      return mark != null ? mark : rememberNow(key);
    }
  }

  /** Creates the key's mark at its account's floor; called under the bookkeeping's lock. */
  private Mark rememberNow(LeaseKey key) {
    Mark mark = new Mark(key, floorOf(key.accountId()));
    marks.put(key, mark);
    book.add(mark);
    return mark;
  }

  private long floorOf(String account) {
    AtomicLong f = floors.get(account);
    return f == null ? 0 : f.get();
  }

  /**
   * Forgets a key taken from the bookkeeping: raises its account's floor to the key's mark
   * before the mark leaves the map, so whoever recreates the key starts at or above it.
   */
  private void forget(Mark m) {
    synchronized (m) {
      if (!m.forgotten) {
        floors.computeIfAbsent(m.key.accountId(), a -> new AtomicLong()).accumulateAndGet(m.highest, Math::max);
        m.forgotten = true;
      }
      marks.remove(m.key, m);
    }
  }

  @Override
  public OptionalLong highWaterMark(LeaseKey key) {
    Arguments.required(key, "key");
    Mark mark = marks.get(key);
    long highest;
    if (mark == null) {
      highest = floorOf(key.accountId());
    } else {
      synchronized (mark) {
        highest = mark.highest;
      }
    }
    return highest == 0 ? OptionalLong.empty() : OptionalLong.of(highest);
  }

  /**
   * How many keys the guard remembers now.
   *
   * @return the count, at most the bound (see the class documentation for concurrent admissions)
   */
  public int rememberedKeys() {
    return marks.size();
  }

  /**
   * {@inheritDoc}
   *
   * <p>Allowed only to operators the guard's {@link AdminPolicy} names; recorded in memory. A
   * new mark of 0 forgets the key's mark, but the floor of its account's forgotten keys still
   * applies.
   */
  @Override
  public MarkReset resetMark(LeaseKey key, long newMark, String operator, String reason) {
    options.checkReset(key, newMark, operator, reason);
    while (true) {
      Mark mark = markOf(key);
      synchronized (mark) {
        if (mark.forgotten) {
          marks.remove(key, mark);
          continue;
        }
        MarkReset reset = new MarkReset(key, mark.highest, newMark, operator, reason, options.clock().instant());
        mark.highest = newMark;
        synchronized (resets) {
          resets.add(reset);
        }
        return reset;
      }
    }
  }

  @Override
  public List<MarkReset> markResets() {
    synchronized (resets) {
      return List.copyOf(resets);
    }
  }

  /** A key's high-water mark; its monitor is the key's lock. */
  private static final class Mark extends RememberedKeys.Node {
    private long highest;
    private boolean forgotten;

    Mark(LeaseKey key, long start) {
      super(key);
      this.highest = start;
    }

    Admission admit(FencingToken token) {
      if (token.fence() < highest) {
        throw new StaleFenceException(token, highest);
      }
      long previous = highest;
      highest = token.fence();
      return new Admission(token, previous);
    }
  }

  /**
   * Options of an {@link InMemoryFenceGuard}: the shared ones of {@link GuardBuilder} (the
   * listener hears resource kind {@value InMemoryFenceGuard#RESOURCE}) and the bound on keys. Not
   * thread-safe.
   */
  public static final class Builder extends GuardBuilder<Builder> {
    private int maxKeys = DEFAULT_MAX_KEYS;

    private Builder() {}


    /**
     * Most keys remembered. Default {@value InMemoryFenceGuard#DEFAULT_MAX_KEYS}.
     *
     * @param maxKeys at least 10
     * @return this builder
     */
    public Builder maxKeys(int maxKeys) {
      this.maxKeys = (int) Arguments.atLeast(maxKeys, 10, "maxKeys");
      return this;
    }

    /**
     * Builds the guard.
     *
     * @return the guard
     * @throws IllegalStateException if no verifier was chosen
     */
    public InMemoryFenceGuard build() {
      return new InMemoryFenceGuard(options(RESOURCE), maxKeys);
    }
  }
}
