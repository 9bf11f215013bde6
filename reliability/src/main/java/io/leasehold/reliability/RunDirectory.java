package io.leasehold.reliability;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Where a run keeps its histories and logs: a fresh directory under {@code target/runs} of the
 * working directory (the module's, under Maven), or under the system property {@value #PROPERTY} or
 * the environment variable {@value #ENV}; never the system temp directory, so nothing is left there
 * after a run (issue 33).
 */
public final class RunDirectory {
  /** The system property naming another base directory. */
  public static final String PROPERTY = "leasehold.runDir";

  /** The environment variable naming another base directory (for runs started by Maven's exec). */
  public static final String ENV = "LEASEHOLD_RUN_DIR";

  private RunDirectory() {}

  /**
   * A new directory named {@code prefix} plus a unique suffix.
   *
   * @param prefix the name's start
   * @return the directory
   * @throws IOException if it cannot be created
   */
  public static Path create(String prefix) throws IOException {
    String named = System.getProperty(PROPERTY, System.getenv(ENV));
    Path base = Path.of(named == null || named.isBlank() ? "target/runs" : named).toAbsolutePath();
    Files.createDirectories(base);
    return Files.createTempDirectory(base, prefix);
  }
}
