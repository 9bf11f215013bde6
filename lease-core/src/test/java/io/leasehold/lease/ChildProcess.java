package io.leasehold.lease;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** A separate JVM running a test main class on this JVM's class path. */
final class ChildProcess implements AutoCloseable {
  private final Process process;
  private final BufferedReader out;

  private ChildProcess(Process process) {
    this.process = process;
    this.out =
        new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
  }

  static ChildProcess start(Class<?> main, String... args) throws IOException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(main.getName());
    command.addAll(List.of(args));
    return new ChildProcess(
        new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start());
  }

  /** Reads lines until one starts with {@code prefix}; fails if the child exits or times out. */
  String awaitLine(String prefix, long timeoutSeconds) throws Exception {
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

  Process process() {
    return process;
  }

  void kill() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor(30, TimeUnit.SECONDS);
  }

  @Override
  public void close() throws InterruptedException {
    if (process.isAlive()) {
      kill();
    }
  }
}
