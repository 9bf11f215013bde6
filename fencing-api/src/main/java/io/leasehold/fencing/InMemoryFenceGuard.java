package io.leasehold.fencing;

import io.leasehold.fencing.internal.Arguments;
import io.leasehold.fencing.mark.MemoryMarkStore;
import java.util.List;
import java.util.OptionalLong;
import java.util.function.Function;
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
 * <p>Each lease key has its own small lock; keys never contend with each other. {@link #runFenced}
 * runs the resource's own write under that lock, so no lower fence can be admitted between the
 * check and the write. Every token is verified before its mark is looked at.
 *
 * <h2>Bounded memory</h2>
 *
 * The guard keeps at most {@link Builder#maxKeys(int)} keys (default {@value #DEFAULT_MAX_KEYS}).
 * Past that it forgets keys, and forgetting is safe (CONTRACT C16): it keeps, per account, a
 * <em>floor</em>, the highest mark it ever forgot of that account, and a key it does not remember
 * starts at its account's floor. A stale writer of a forgotten key is therefore refused; the price
 * is that an old but live run of a forgotten key may be refused too, which is the safe side.
 *
 * <p>Forgetting stays within an account (CONTRACT C19), with one exception: a new key is made room
 * for by forgetting keys of its own account, or, for an account with no key remembered, of the
 * account that holds the most. So one account's admitted calls never raise another account's floor
 * unless that other account holds the most keys at that moment. A refused call, of any account,
 * makes the guard forget nothing: a key it does not remember whose fence is below its account's
 * floor is refused before any room is made (CONTRACT C13, C21). Each time, up to a tenth of the
 * bound's worth of that account's keys are forgotten, the ones it has held longest first; among
 * accounts that hold equally many, the one that reached that count first gives way. A new key
 * starts at its account's floor as it was before that room was made (the keys forgotten for it were
 * never its own). The floors take one entry per account that ever had a key forgotten (about 120
 * bytes each with a short account id), which the bound does not limit.
 *
 * <p>Admitting a key the guard remembers takes that key's lock and nothing else. Admitting a key it
 * does not remember also takes, briefly, one lock for the whole guard, to file the key in its
 * account's queue; when the guard is full, that admission first forgets keys (waiting for each
 * one's lock, so never while another thread writes under it). Both are O(1) amortised, whatever the
 * number of keys or accounts: the accounts' queues and their counts are kept in linked lists, and
 * an account leaves them when its last key is forgotten (issue 46: before, each admission into a
 * full guard scanned every account and every key, about 2.8 ms at 40,000 keys). The marks live in a
 * {@link MemoryMarkStore}, the memory medium the in-memory tool journal uses too, and each call
 * goes through the {@link GuardPipeline}. A write that itself admits new keys never has its own key
 * forgotten under it: the key stays, one past the bound while the write runs; the next new key
 * makes room for that excess too, and {@link #runFenced} forgets what is still over the bound as
 * its write ends, so the bound holds again once no such write runs. Under concurrent admissions of
 * new keys the bound may also be passed, for a moment, by one key per thread making room.
 *
 * <p>Thread-safe.
 */
public final class InMemoryFenceGuard implements FenceGuard {
  /** Default bound on remembered keys. */
  public static final int DEFAULT_MAX_KEYS = 100_000;

  /** The resource kind this guard reports to its {@link GuardListener}. */
  public static final String RESOURCE = "memory";

  private final GuardPipeline<Void> pipeline;

  /** The step of {@link #admit}: an admission without a write, made once, not per call. */
  private final GuardPipeline.Step<Void, Admission> admitOnly;

  private final MemoryMarkStore marks;

  private InMemoryFenceGuard(GuardOptions options, int maxKeys) {
    this.pipeline = GuardPipeline.unscoped(options);
    this.marks = MemoryMarkStore.bounded(maxKeys);
    this.admitOnly = call -> marks.admit(null, call.token());
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
    return pipeline.runForKey(fenced, admitOnly);
  }

  /**
   * Admits the token and, while no other token of the same key can be admitted, runs the write. If
   * the write throws, the mark is still raised: a newer run has shown up, and the older one must
   * not come back.
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

  private <T> T runFenced(Fenced fenced, Function<Admission, T> write) {
    return pipeline.runForKey(
        fenced,
        call ->
            marks.admitThen(
                call.token(),
                admission -> {
                  // Once admitted, the mark is raised whatever the write does: heard as ADMITTED
                  // after the write, whether it returns or throws.
                  call.admitted();
                  return write.apply(admission);
                }));
  }

  @Override
  public OptionalLong highWaterMark(LeaseKey key) {
    return marks.read(null, key);
  }

  /**
   * How many keys the guard remembers now.
   *
   * @return the count, at most the bound (see the class documentation for concurrent admissions)
   */
  public int rememberedKeys() {
    return marks.rememberedKeys();
  }

  /**
   * {@inheritDoc}
   *
   * <p>Allowed only to operators the guard's {@link AdminPolicy} names; recorded in memory. A new
   * mark of 0 forgets the key's mark, but the floor of its account's forgotten keys still applies.
   * For a key the guard has forgotten, the reset's {@link MarkReset#previousMark()} is its
   * account's floor, the mark the key was held to: at least the key's own last mark, which the
   * guard no longer knows.
   */
  @Override
  public MarkReset resetMark(LeaseKey key, long newMark, String operator, String reason) {
    GuardOptions options = pipeline.options();
    options.checkReset(key, newMark, operator, reason);
    return marks.reset(null, key, newMark, operator, reason, options.clock().instant());
  }

  @Override
  public List<MarkReset> markResets() {
    return marks.resets(null);
  }

  /**
   * Options of an {@link InMemoryFenceGuard}: the shared ones of {@link GuardBuilder} (the listener
   * hears resource kind {@value InMemoryFenceGuard#RESOURCE}) and the bound on keys. Not
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
