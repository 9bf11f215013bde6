package io.leasehold.lease.citus;

import io.leasehold.testing.TestEnvironment;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * A command named by an environment variable that acts on the Citus coordinator of {@code
 * LEASEHOLD_CITUS_URL} (restarts it, fails it over to its standby), for the tests that take the
 * coordinator down: those need a cluster of their own, so without the variable they are skipped
 * with one line (docs/scale-out.md).
 */
final class CoordinatorCommand {
  private final String command;

  private CoordinatorCommand(String command) {
    this.command = command;
  }

  /**
   * The command named by {@code env}, or the test is skipped saying {@code what} it must do.
   *
   * @param test the test, for the skip line
   * @param env the environment variable
   * @param what the command's task, for the skip line
   */
  static CoordinatorCommand fromEnv(String test, String env, String what) {
    return new CoordinatorCommand(
        TestEnvironment.required(
            env,
            test
                + " skipped: set "
                + env
                + " to a command that "
                + what
                + ", see docs/scale-out.md"));
  }

  /**
   * Runs the command with its one argument; it must succeed within two minutes.
   *
   * @return what it printed
   */
  String run(String argument) throws Exception {
    Process p =
        new ProcessBuilder(command, argument)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.PIPE)
            .start();
    if (!p.waitFor(2, TimeUnit.MINUTES)) {
      p.destroyForcibly();
      throw new IllegalStateException(
          command + " " + argument + " did not finish within 2 minutes");
    }
    String output;
    try (var in = p.getInputStream()) {
      output = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      output = "(output unreadable: " + e + ")";
    }
    if (p.exitValue() != 0) {
      throw new IllegalStateException(
          command + " " + argument + " exited with " + p.exitValue() + ": " + output);
    }
    return output.strip();
  }
}
