package io.leasehold.reliability;

/**
 * The torture run from the command line. Settings are {@code name=value} arguments (see {@link
 * TortureConfig#parse}); the defaults are the CI profile with a random seed. Exits 0 only if the
 * checker found no violation.
 *
 * <pre>
 * mvn -q -pl reliability -am -DskipTests -Ptorture verify -Dtorture.args="duration=10m threads=6 processes=3 seed=42"
 * </pre>
 */
public final class TortureMain {
  private TortureMain() {}

  /**
   * Runs the torture run.
   *
   * @param args {@code name=value} settings
   */
  public static void main(String[] args) {
    TortureConfig config;
    try {
      config = TortureConfig.parse(args);
    } catch (IllegalArgumentException e) {
      System.err.println(e.getMessage());
      System.err.println(
          "settings: seed= duration= threads= processes= workers-per-process= keys= ttl= faults=pause,kill,conn,lock,restart broken= jdbc-url=");
      System.exit(2);
      return;
    }
    System.exit(TortureRun.run(config, System.out).passed() ? 0 : 1);
  }
}
