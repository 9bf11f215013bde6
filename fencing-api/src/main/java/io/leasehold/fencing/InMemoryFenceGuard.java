package io.leasehold.fencing;

import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * A {@link FenceGuard} for a resource that lives in one process and whose state is lost with it.
 *
 * <p>Each lease key has its own small lock; keys never contend with each other. {@link
 * #runFenced} runs the resource's own write under that lock, so no lower fence can be admitted
 * between the check and the write. Marks are kept for every key ever seen, one small object per
 * key; the guard never forgets a key by itself.
 *
 * <p>Thread-safe.
 */
public final class InMemoryFenceGuard implements FenceGuard {
  private final ConcurrentHashMap<LeaseKey, Mark> marks = new ConcurrentHashMap<>();

  /** Creates a guard that has seen no token. */
  public InMemoryFenceGuard() {}

  @Override
  public Admission admit(Fenced fenced) {
    FencingToken token = Fenced.present(fenced);
    Mark mark = marks.computeIfAbsent(token.key(), k -> new Mark());
    synchronized (mark) {
      return mark.admit(token);
    }
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
   * @throws LeaseLostException if the presenter knows its lease is lost; the write did not run
   */
  public <T> T runFenced(Fenced fenced, Supplier<T> write) {
    if (write == null) {
      throw new IllegalArgumentException("write must not be null");
    }
    FencingToken token = Fenced.present(fenced);
    Mark mark = marks.computeIfAbsent(token.key(), k -> new Mark());
    synchronized (mark) {
      mark.admit(token);
      return write.get();
    }
  }

  @Override
  public OptionalLong highWaterMark(LeaseKey key) {
    if (key == null) {
      throw new IllegalArgumentException("key must not be null");
    }
    Mark mark = marks.get(key);
    if (mark == null) {
      return OptionalLong.empty();
    }
    synchronized (mark) {
      return mark.highest == 0 ? OptionalLong.empty() : OptionalLong.of(mark.highest);
    }
  }

  private static final class Mark {
    private long highest;

    Admission admit(FencingToken token) {
      if (token.fence() < highest) {
        throw new StaleFenceException(token, highest);
      }
      long previous = highest;
      highest = token.fence();
      return new Admission(token, previous);
    }
  }
}
