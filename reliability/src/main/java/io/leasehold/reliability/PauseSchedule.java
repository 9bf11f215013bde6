package io.leasehold.reliability;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * When each worker of one process freezes: drawn once from the seed, by time since the process
 * started, so the same seed freezes the same workers at the same moments whatever else happens.
 * Thread-safe.
 */
final class PauseSchedule {
  private final long startNanos = System.nanoTime();
  private final Map<String, Deque<Long>> dueMillis = new HashMap<>();

  PauseSchedule(long seed, List<String> workers, long durationMillis, long meanGapMillis) {
    Random random = new Random(seed);
    for (String w : workers) {
      Deque<Long> times = new ArrayDeque<>();
      long t = 0;
      while (true) {
        t += meanGapMillis / 2 + (long) (random.nextDouble() * meanGapMillis);
        if (t > durationMillis * 8 / 10) {
          break;
        }
        times.add(t);
      }
      dueMillis.put(w, times);
    }
  }

  /** True once for each scheduled pause of the worker whose time has come. */
  synchronized boolean due(String worker) {
    Deque<Long> times = dueMillis.get(worker);
    long elapsed = (System.nanoTime() - startNanos) / 1_000_000;
    if (times != null && !times.isEmpty() && times.peekFirst() <= elapsed) {
      times.pollFirst();
      return true;
    }
    return false;
  }

  synchronized List<String> describe() {
    List<String> out = new ArrayList<>();
    dueMillis.forEach((w, times) -> out.add(w + " at " + times + " ms"));
    out.sort(null);
    return out;
  }
}
