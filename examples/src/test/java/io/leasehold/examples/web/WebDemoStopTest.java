package io.leasehold.examples.web;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Issue 51: the web demo, started as a user starts it (its own JVM, its main), listens on loopback
 * only, and a SIGTERM stops it cleanly: exit 0, no stack trace, no warning (before, the JVM
 * reported 143, and the lease watcher's connection was pulled away under it with a WARN).
 */
class WebDemoStopTest {
  @Test
  void aSigtermStopsTheDemoWithExitZeroAndNoStackTrace() throws Exception {
    Path java = Path.of(System.getProperty("java.home"), "bin", "java");
    Process demo =
        new ProcessBuilder(
                java.toString(),
                "-cp",
                System.getProperty("java.class.path"),
                WebDemo.class.getName(),
                "--port",
                "0")
            .redirectErrorStream(true)
            .start();
    List<String> output = new CopyOnWriteArrayList<>();
    CountDownLatch started = new CountDownLatch(1);
    Thread reader =
        new Thread(
            () -> {
              try (BufferedReader out =
                  new BufferedReader(
                      new InputStreamReader(demo.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line = out.readLine(); line != null; line = out.readLine()) {
                  output.add(line);
                  if (line.startsWith("Ctrl-C")) {
                    started.countDown();
                  }
                }
              } catch (IOException e) {
                throw new UncheckedIOException(e);
              }
            },
            "web-demo-output");
    reader.start();
    try {
      assertThat(started.await(120, TimeUnit.SECONDS)).as("started; output: %s", output).isTrue();
      assertThat(output)
          .filteredOn(l -> l.contains("?device="))
          .hasSize(2)
          .allMatch(l -> l.contains("http://127.0.0.1:"));
      // SIGTERM on Linux and macOS; the stream stays open until the process has written its last
      // line.
      demo.toHandle().destroy();
      assertThat(demo.waitFor(60, TimeUnit.SECONDS)).as("stopped within a minute").isTrue();
      reader.join(10_000);
    } finally {
      demo.destroyForcibly();
    }
    assertThat(demo.exitValue()).as("exit status; output:%n%s", String.join("\n", output)).isZero();
    assertThat(output).contains("Web demo stopped.");
    assertThat(output)
        .noneMatch(l -> l.contains("Exception") || l.contains("WARN") || l.startsWith("\tat "));
  }
}
