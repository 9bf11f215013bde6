package io.leasehold.reliability;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The failover run from the command line (needs root and reliability/ha/install.sh). Settings:
 * {@code replication=sync|async}, {@code failovers=N}, {@code every=30s}, {@code bound=60s} (the
 * longest a failover may take), {@code expect-loss=true} (the negative control), and any torture
 * setting ({@link TortureConfig#parse}). Exits with {@link FailoverVerdict}'s status: 0 only if no
 * acknowledged write was lost, the checker found no violation, the fence sequence never went back
 * and every failover completed within its bound; with {@code expect-loss=true}, 0 only if a loss
 * was detected. Histories and logs go under {@code target/runs} (or {@code LEASEHOLD_RUN_DIR}).
 *
 * <pre>
 * mvn -q -pl reliability -am -DskipTests -Pfailover verify -Dfailover.args="failovers=20 seed=42"
 * mvn -q -pl reliability -am -DskipTests -Pfailover verify -Dfailover.args="replication=async expect-loss=true failovers=10"
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
    Duration bound = Duration.ofSeconds(60);
    boolean expectLoss = false;
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
        } else if (a.startsWith("bound=")) {
          bound = TortureConfig.duration(a.substring("bound=".length()));
        } else if (a.startsWith("expect-loss=")) {
          expectLoss = Boolean.parseBoolean(a.substring("expect-loss=".length()));
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
      if (expectLoss && synchronous) {
        throw new IllegalArgumentException(
            "expect-loss=true is the asynchronous negative control: add replication=async");
      }
      FailoverRun.Report r = FailoverRun.run(synchronous, faults, every, config, System.out);
      FailoverVerdict verdict = FailoverVerdict.of(r, bound, expectLoss);
      System.out.println(verdict.summary());
      System.exit(verdict.exitStatus());
    } catch (IllegalArgumentException e) {
      System.err.println(e.getMessage());
      System.err.println(
          "settings: replication=sync|async failovers= every= bound= expect-loss= and the torture run's"
              + " (seed= threads= ...)");
      System.exit(2);
    }
  }
}
