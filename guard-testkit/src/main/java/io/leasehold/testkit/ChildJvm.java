package io.leasehold.testkit;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A separate JVM running a main class on this JVM's class path, for tests, demos and torture runs
 * whose guarantee is about processes: the project's one way to start a child JVM. Its standard
 * error goes to this JVM's and its standard output is read line by line ({@link #awaitLine}, {@link
 * #forwardLines}), or both go to files ({@link #startLogged}). Closing it kills the process if it
 * still runs.
 */
public final class ChildJvm implements AutoCloseable {
  private final Process process;
  private final BufferedReader out;

  private ChildJvm(Process process) {
    this.process = process;
    this.out =
        new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
  }

  /**
   * The command line that runs {@code main} in a new JVM on this JVM's class path, for a launcher
   * that starts the process itself (an MCP client's stdio transport).
   *
   * @param main a class with a {@code main} method, on this JVM's class path
   * @param args its arguments
   * @return the java executable, then its arguments
   */
  public static List<String> command(Class<?> main, String... args) {
    if (main == null) {
      throw new IllegalArgumentException("main must not be null");
    }
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(main.getName());
    command.addAll(List.of(args));
    return command;
  }

  /**
   * Starts a JVM running {@code main} whose standard output and standard error go to files, for
   * long runs whose output is read afterwards. {@link #awaitLine} does not apply to it.
   *
   * @param main a class with a {@code main} method, on this JVM's class path
   * @param output the file for its standard output (replaced)
   * @param error the file for its standard error (replaced)
   * @param args its arguments
   * @return the running child
   * @throws IOException if the process cannot be started
   */
  public static ChildJvm startLogged(Class<?> main, Path output, Path error, String... args)
      throws IOException {
    return new ChildJvm(
        new ProcessBuilder(command(main, args))
            .redirectOutput(output.toFile())
            .redirectError(error.toFile())
            .start());
  }

  /**
   * Hands every line the child prints to {@code sink}, on a daemon thread of its own, until the
   * child closes its output; tells {@code sink} if reading failed (as a line {@code "output lost:
   * ..."}). Use it instead of {@link #awaitLine}, not with it.
   *
   * @param name names the reading thread ({@code child-<name>-output})
   * @param sink called with each line, on the reading thread
   */
  public void forwardLines(String name, java.util.function.Consumer<String> sink) {
    Thread reader =
        new Thread(
            () -> {
              try {
                for (String l = out.readLine(); l != null; l = out.readLine()) {
                  sink.accept(l);
                }
              } catch (IOException e) {
                sink.accept("output lost: " + e);
              }
            },
            "child-" + name + "-output");
    reader.setDaemon(true);
    reader.start();
  }

  /**
   * Starts a JVM running {@code main} with the given arguments.
   *
   * @param main a class with a {@code main} method, on this JVM's class path
   * @param args its arguments
   * @return the running child
   * @throws IOException if the process cannot be started
   */
  public static ChildJvm start(Class<?> main, String... args) throws IOException {
    return new ChildJvm(
        new ProcessBuilder(command(main, args))
            .redirectError(ProcessBuilder.Redirect.INHERIT)
            .start());
  }

  /**
   * Reads lines until one starts with {@code prefix}.
   *
   * @param prefix the line's beginning
   * @param timeoutSeconds how long to wait
   * @return the line
   * @throws TimeoutException if no such line came in time
   * @throws ExecutionException if the child exited first
   * @throws InterruptedException if interrupted while waiting
   */
  public String awaitLine(String prefix, long timeoutSeconds)
      throws TimeoutException, ExecutionException, InterruptedException {
    CompletableFuture<String> line =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                for (String l = out.readLine(); l != null; l = out.readLine()) {
                  if (l.startsWith(prefix)) {
                    return l;
                  }
                }
                throw new IllegalStateException("child exited before printing " + prefix);
              } catch (IOException e) {
                throw new IllegalStateException(e);
              }
            });
    return line.get(timeoutSeconds, TimeUnit.SECONDS);
  }

  /**
   * Sends a line to the child's standard input.
   *
   * @param line the line, without its line break
   * @throws java.io.IOException if the child's input is closed
   */
  public void send(String line) throws IOException {
    var in = process.getOutputStream();
    in.write((line + "\n").getBytes(StandardCharsets.UTF_8));
    in.flush();
  }

  /**
   * Waits for the child to exit by itself.
   *
   * @param timeoutSeconds how long to wait
   * @return its exit code
   * @throws TimeoutException if it is still running then
   * @throws InterruptedException if interrupted while waiting
   */
  public int awaitExit(long timeoutSeconds) throws TimeoutException, InterruptedException {
    if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
      throw new TimeoutException("child still running after " + timeoutSeconds + " s");
    }
    return process.exitValue();
  }

  /**
   * The process.
   *
   * @return the process
   */
  public Process process() {
    return process;
  }

  /**
   * Kills the child with SIGKILL ({@link Process#destroyForcibly()}) and waits for it to end.
   *
   * @throws InterruptedException if interrupted while waiting
   */
  public void kill() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor(30, TimeUnit.SECONDS);
  }

  /** Kills the child if it still runs; restores the interrupt flag if interrupted meanwhile. */
  @Override
  public void close() {
    if (process.isAlive()) {
      try {
        kill();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
