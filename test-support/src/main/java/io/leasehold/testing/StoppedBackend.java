package io.leasehold.testing;

import java.io.IOException;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.Assumptions;

/**
 * A PostgreSQL backend process stopped with {@code SIGSTOP}, as a hung server is: the socket stays
 * open and the kernel takes the client's bytes, but nothing answers, and the server's own {@code
 * statement_timeout} cannot fire in a process that does not run. Closing it sends {@code SIGCONT}.
 * It needs a server on this machine running as the test's user (the embedded one); with another the
 * test is skipped, with a line saying so.
 */
public final class StoppedBackend implements AutoCloseable {
  private final long pid;

  private StoppedBackend(long pid) {
    this.pid = pid;
  }

  /**
   * The backend of a connection.
   *
   * @param c the connection
   * @return the backend's process id
   * @throws SQLException if the question fails
   */
  public static long pidOf(Connection c) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT pg_backend_pid()")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  /**
   * Stops a backend.
   *
   * @param pid the backend's process id
   * @return the stopped backend; close it to let it run again
   * @throws IOException if {@code kill} cannot be started
   * @throws InterruptedException if interrupted while {@code kill} runs
   */
  public static StoppedBackend stop(long pid) throws IOException, InterruptedException {
    Assumptions.assumeTrue(
        ProcessHandle.of(pid).isPresent(),
        "backend " + pid + " is not a process of this machine: run on the embedded server");
    signal("STOP", pid);
    return new StoppedBackend(pid);
  }

  private static void signal(String signal, long pid) throws IOException, InterruptedException {
    Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).start();
    if (kill.waitFor() != 0) {
      throw new IOException(
          "kill -"
              + signal
              + " "
              + pid
              + " failed: "
              + new String(kill.getErrorStream().readAllBytes()));
    }
  }

  /**
   * Lets the backend run again.
   *
   * @throws IOException if {@code kill} fails, or the wait for it was interrupted
   */
  @Override
  public void close() throws IOException {
    try {
      signal("CONT", pid);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while sending SIGCONT to backend " + pid, e);
    }
  }
}
