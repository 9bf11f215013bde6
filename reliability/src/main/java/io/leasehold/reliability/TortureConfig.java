package io.leasehold.reliability;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * Settings of one torture run, parsed from {@code name=value} arguments.
 *
 * @param seed the seed of every random choice; the same seed replays the same fault schedule
 * @param duration how long workers run and faults are injected
 * @param threads worker threads in the main process
 * @param processes separate worker JVMs (a killed one is replaced)
 * @param workersPerProcess worker threads in each separate JVM
 * @param keys how many lease keys the workers share
 * @param ttl the lease TTL
 * @param faults which faults to inject: {@code pause}, {@code kill}, {@code conn}, {@code lock},
 *     {@code restart}
 * @param broken run the deliberately broken lease store instead of the real one
 * @param jdbcUrl an external database (no restart fault then), or empty for an embedded one
 */
public record TortureConfig(
    long seed,
    Duration duration,
    int threads,
    int processes,
    int workersPerProcess,
    int keys,
    Duration ttl,
    Set<String> faults,
    boolean broken,
    Optional<String> jdbcUrl) {

  static final Set<String> ALL_FAULTS = Set.of("pause", "kill", "conn", "lock", "restart");

  /** The CI profile: 30 s, 4 threads and 2 JVMs of 2 workers over 3 keys, every fault. */
  static TortureConfig ci(long seed) {
    return new TortureConfig(
        seed,
        Duration.ofSeconds(30),
        4,
        2,
        2,
        3,
        Duration.ofMillis(1200),
        ALL_FAULTS,
        false,
        Optional.empty());
  }

  /**
   * Parses {@code name=value} arguments over the CI profile with a random seed.
   *
   * @param args e.g. {@code duration=10m threads=8 seed=42}
   * @return the config
   */
  public static TortureConfig parse(String... args) {
    TortureConfig c = ci(System.nanoTime());
    long seed = c.seed;
    Duration duration = c.duration;
    int threads = c.threads;
    int processes = c.processes;
    int perProcess = c.workersPerProcess;
    int keys = c.keys;
    Duration ttl = c.ttl;
    Set<String> faults = c.faults;
    boolean broken = false;
    Optional<String> url = Optional.empty();
    for (String a : args) {
      if (a.isBlank()) {
        continue;
      }
      int eq = a.indexOf('=');
      if (eq < 0) {
        throw new IllegalArgumentException("expected name=value, got " + a);
      }
      String name = a.substring(0, eq);
      String v = a.substring(eq + 1);
      switch (name) {
        case "seed" -> seed = Long.parseLong(v);
        case "duration" -> duration = duration(v);
        case "threads" -> threads = Integer.parseInt(v);
        case "processes" -> processes = Integer.parseInt(v);
        case "workers-per-process" -> perProcess = Integer.parseInt(v);
        case "keys" -> keys = Integer.parseInt(v);
        case "ttl" -> ttl = duration(v);
        case "faults" -> faults = v.isEmpty() ? Set.of() : Set.of(v.split(","));
        case "broken" -> broken = Boolean.parseBoolean(v);
        case "jdbc-url" -> url = Optional.of(v);
        default -> throw new IllegalArgumentException("unknown setting " + name);
      }
    }
    if (!ALL_FAULTS.containsAll(faults)) {
      throw new IllegalArgumentException("faults must be among " + ALL_FAULTS);
    }
    if (threads < 1 || processes < 0 || keys < 1 || perProcess < 1) {
      throw new IllegalArgumentException("threads, keys and workers-per-process must be positive");
    }
    return new TortureConfig(
        seed, duration, threads, processes, perProcess, keys, ttl, faults, broken, url);
  }

  static Duration duration(String v) {
    String t = v.toLowerCase(Locale.ROOT);
    if (t.endsWith("ms")) {
      return Duration.ofMillis(Long.parseLong(t.substring(0, t.length() - 2)));
    }
    if (t.endsWith("s")) {
      return Duration.ofSeconds(Long.parseLong(t.substring(0, t.length() - 1)));
    }
    if (t.endsWith("m")) {
      return Duration.ofMinutes(Long.parseLong(t.substring(0, t.length() - 1)));
    }
    throw new IllegalArgumentException("not a duration: " + v);
  }

  List<String> describe() {
    List<String> l = new ArrayList<>();
    l.add("seed=" + seed);
    l.add("duration=" + duration.toSeconds() + "s");
    l.add("threads=" + threads);
    l.add("processes=" + processes + "x" + workersPerProcess);
    l.add("keys=" + keys);
    l.add("ttl=" + ttl.toMillis() + "ms");
    l.add("faults=" + String.join(",", new java.util.TreeSet<>(faults)));
    if (broken) {
      l.add("broken=true");
    }
    return l;
  }
}
