package io.leasehold.reliability.ha;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * The cluster's preparation, with its commands recorded instead of run (no root, no Patroni
 * needed). CI once failed in FailoverSmokeTest.startCluster: {@code chown -R postgres:postgres <run
 * dir>} walked etcd's data directory while etcd, started just before, created and removed {@code
 * member/snap/.touch} there.
 */
class PatroniClusterPreparationTest {
  /** Records each command instead of running it; {@code onRun} plays the system's part. */
  private static final class RecordedCommands implements PatroniCluster.Commands {
    final List<String> recorded = new ArrayList<>();
    private final Consumer<String[]> onRun;

    RecordedCommands(Consumer<String[]> onRun) {
      this.onRun = onRun;
    }

    @Override
    public void run(String... command) {
      recorded.add(String.join(" ", command));
      onRun.accept(command);
    }

    @Override
    public Process start(ProcessBuilder builder) {
      recorded.add("start " + builder.command().get(0));
      return null;
    }

    PatroniCluster cluster() throws IOException {
      return new PatroniCluster(
          true, new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8), this);
    }
  }

  @Test
  void ownershipChangesOnlyOnTheNodeHomesAndBeforeEtcdStarts() throws Exception {
    RecordedCommands commands = new RecordedCommands(command -> {});
    try (PatroniCluster cluster = commands.cluster()) {
      cluster.prepareAndStartEtcd();
      String dir = cluster.directory().toString();
      assertThat(commands.recorded)
          .containsExactly(
              "chown -R postgres:postgres " + dir + "/node1",
              "chown -R postgres:postgres " + dir + "/node2",
              "chown -R postgres:postgres " + dir + "/node3",
              "chmod 755 " + dir,
              "start /usr/bin/etcd");
      assertThat(cluster.directory().resolve("node1/patroni.yml")).exists();
    }
  }

  /**
   * CI's FailoverSmokeTest once ended in its clean-up with {@code kill -9 <pid> failed: No such
   * process}: the postmaster, a descendant of the Patroni just killed, exited between the read of
   * its pid file and the kill. Here the recorded kill ends the process first and then fails as the
   * system's would; closing still succeeds, and a postmaster already gone gets no kill at all.
   */
  @Test
  void closingSucceedsWhenThePostmasterExitsBeforeItsKill() throws Exception {
    Process postmaster = new ProcessBuilder("sleep", "120").start();
    RecordedCommands commands =
        new RecordedCommands(
            command -> {
              if (command[0].equals("kill")) {
                postmaster.destroyForcibly();
                postmaster.onExit().join();
                throw new IllegalStateException(
                    String.join(" ", command) + " failed: No such process");
              }
            });
    PatroniCluster cluster = commands.cluster();
    Path data = Files.createDirectories(cluster.directory().resolve("node1/data"));
    Files.writeString(data.resolve("postmaster.pid"), postmaster.pid() + "\n/data\n");
    try {
      assertThatCode(cluster::close).doesNotThrowAnyException();
      assertThat(commands.recorded).containsExactly("kill -9 " + postmaster.pid());
      assertThat(postmaster.isAlive()).isFalse();
    } finally {
      postmaster.destroyForcibly();
    }
  }
}
