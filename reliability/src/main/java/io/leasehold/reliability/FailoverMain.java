package io.leasehold.reliability;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The failover run from the command line (needs root and reliability/ha/install.sh). Settings:
 * {@code replication=sync|async}, {@code failovers=N}, {@code every=30s}, and any torture setting
 * ({@link TortureConfig#parse}). Exits 0 only if the checker found no violation.
 *
 * <pre>
 * mvn -q -pl reliability -am -DskipTests -Pfailover verify -Dfailover.args="failovers=20 seed=42"
 * mvn -q -pl reliability -am -DskipTests -Pfailover verify -Dfailover.args="replication=async failovers=10"
 * </pre>
 */
public final class FailoverMain {
  private FailoverMain() {}

  /**
   * Runs the failover run.
   *
   * @param args {@code name=value} settings
   */
  public static void main(String[] args) {
    boolean synchronous = true;
    int faults = 20;
    Duration every = Duration.ofSeconds(30);
    List<String> torture = new ArrayList<>(List.of("faults=pause,kill,conn,lock", "ttl=2s"));
    try {
      for (String a : args) {
        if (a.startsWith("replication=")) {
          String v = a.substring("replication=".length());
          if (!v.equals("sync") && !v.equals("async")) {
            throw new IllegalArgumentException("replication must be sync or async, was " + v);
          }
          synchronous = v.equals("sync");
        } else if (a.startsWith("failovers=")) {
          faults = Integer.parseInt(a.substring("failovers=".length()));
        } else if (a.startsWith("every=")) {
          every = TortureConfig.duration(a.substring("every=".length()));
        } else {
          torture.add(a);
        }
      }
      if (faults < 1 || every.toSeconds() < 15) {
        throw new IllegalArgumentException("failovers must be positive and every at least 15s");
      }
      TortureConfig config = TortureConfig.parse(torture.toArray(String[]::new));
      FailoverRun.Report r = FailoverRun.run(synchronous, faults, every, config, System.out);
      System.exit(r.torture().passed() ? 0 : 1);
    } catch (IllegalArgumentException e) {
      System.err.println(e.getMessage());
      System.err.println("settings: replication=sync|async failovers= every= and the torture run's (seed= threads= ...)");
      System.exit(2);
    }
  }
}
