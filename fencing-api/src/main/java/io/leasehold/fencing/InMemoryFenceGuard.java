package io.leasehold.fencing;

import io.leasehold.fencing.internal.Arguments;
import java.util.ArrayList;
import java.util.Iterator;
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
 * account is itself the largest. The floors take one entry per account that ever had a key
 * forgotten.
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
  /** Per account: how many keys are remembered, to find the largest account. */
  private final ConcurrentHashMap<String, java.util.concurrent.atomic.AtomicInteger> counts = new ConcurrentHashMap<>();
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
          continue; // removed meanwhile: take the key's new mark, which starts at the floor
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
    if (mark != null) {
      return mark;
    }
    if (marks.size() >= maxKeys) {
      forgetSome(key.accountId());
    }
    return remember(key);
  }

  /** The key's mark, created at its account's floor if the key is not remembered. */
  private Mark remember(LeaseKey key) {
    return marks.computeIfAbsent(
        key,
        k -> {
          counts.computeIfAbsent(k.accountId(), a -> new java.util.concurrent.atomic.AtomicInteger()).incrementAndGet();
          return new Mark(floorOf(k.accountId()));
        });
  }

  private long floorOf(String account) {
    AtomicLong f = floors.get(account);
    return f == null ? 0 : f.get();
  }

  /** The account whose keys make room: the new key's own, or else the one with the most keys. */
  private String victimFor(String account) {
    java.util.concurrent.atomic.AtomicInteger own = counts.get(account);
    if (own != null && own.get() > 0) {
      return account;
    }
    String largest = null;
    int most = 0;
    for (java.util.Map.Entry<String, java.util.concurrent.atomic.AtomicInteger> e : counts.entrySet()) {
      if (e.getValue().get() > most) {
        most = e.getValue().get();
        largest = e.getKey();
      }
    }
    return largest;
  }

  /**
   * Forgets about a tenth of the bound's worth of keys of one account ({@link #victimFor}),
   * raising that account's floor to their highest mark first.
   */
  private void forgetSome(String account) {
    String victim = victimFor(account);
    if (victim == null) {
      return;
    }
    int toForget = Math.max(1, maxKeys / 10);
    Iterator<java.util.Map.Entry<LeaseKey, Mark>> it = marks.entrySet().iterator();
    while (toForget > 0 && it.hasNext()) {
      java.util.Map.Entry<LeaseKey, Mark> e = it.next();
      if (!e.getKey().accountId().equals(victim)) {
        continue;
      }
      Mark m = e.getValue();
      synchronized (m) {
        if (m.forgotten) {
          continue;
        }
        floors.computeIfAbsent(victim, a -> new AtomicLong()).accumulateAndGet(m.highest, Math::max);
        m.forgotten = true;
      }
      if (marks.remove(e.getKey(), m)) {
        counts.get(victim).decrementAndGet();
      }
      toForget--;
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
   * @return the count, at most the bound
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
      Mark mark = remember(key);
      synchronized (mark) {
        if (mark.forgotten) {
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

  private static final class Mark {
    private long highest;
    private boolean forgotten;

    Mark(long start) {
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
