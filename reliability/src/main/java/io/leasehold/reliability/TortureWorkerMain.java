package io.leasehold.reliability;

import java.nio.file.Path;
import java.time.Duration;

/**
 * A separate worker JVM of the torture run. Arguments: JDBC URL, shared directory, process name,
 * workers, seed, TTL ms, duration ms, keys, broken, history file.
 */
public final class TortureWorkerMain {
  private static final java.util.logging.Logger LIQUIBASE =
      java.util.logging.Logger.getLogger("liquibase");

  private TortureWorkerMain() {}

  /**
   * Runs the workers.
   *
   * @param args see the class description
   * @throws InterruptedException if interrupted
   */
  public static void main(String[] args) throws InterruptedException {
    LIQUIBASE.setLevel(java.util.logging.Level.WARNING);
    WorkerProcess.run(
        args[0],
        Path.of(args[1]),
        args[2],
        Integer.parseInt(args[3]),
        Long.parseLong(args[4]),
        Duration.ofMillis(Long.parseLong(args[5])),
        Duration.ofMillis(Long.parseLong(args[6])),
        Integer.parseInt(args[7]),
        Boolean.parseBoolean(args[8]),
        Path.of(args[9]));
  }
}
