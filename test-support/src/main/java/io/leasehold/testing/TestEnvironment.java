package io.leasehold.testing;

import org.junit.jupiter.api.Assumptions;

/** What a test needs from its environment that the build cannot provide, or the test is skipped. */
public final class TestEnvironment {
  private TestEnvironment() {}

  /**
   * The value of environment variable {@code name}, or the test is skipped with one line that says
   * what to set.
   *
   * @param name the variable
   * @param skipped the line a skipped test reports: what it is, what to set, and where that is
   *     described
   * @return the value, not blank
   */
  public static String required(String name, String skipped) {
    String value = System.getenv(name);
    Assumptions.assumeTrue(value != null && !value.isBlank(), skipped);
    return value;
  }
}
