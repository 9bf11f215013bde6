package io.leasehold.reliability.ha;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The cluster's preparation, with its commands recorded instead of run (no root, no Patroni
 * needed). CI once failed in FailoverSmokeTest.startCluster: {@code chown -R postgres:postgres <run
 * dir>} walked etcd's data directory while etcd, started just before, created and removed {@code
 * member/snap/.touch} there.
 */
class PatroniClusterPreparationTest {
  @Test
  void ownershipChangesOnlyOnTheNodeHomesAndBeforeEtcdStarts() throws Exception {
    List<String> recorded = new ArrayList<>();
    PatroniCluster.Commands record =
        new PatroniCluster.Commands() {
          @Override
          public void run(String... command) {
            recorded.add(String.join(" ", command));
          }

          @Override
          public Process start(ProcessBuilder builder) {
            recorded.add("start " + builder.command().get(0));
            return null;
          }
        };
    PrintStream log = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
    try (PatroniCluster cluster = new PatroniCluster(true, log, record)) {
      cluster.prepareAndStartEtcd();
      String dir = cluster.directory().toString();
      assertThat(recorded)
          .containsExactly(
              "chown -R postgres:postgres " + dir + "/node1",
              "chown -R postgres:postgres " + dir + "/node2",
              "chown -R postgres:postgres " + dir + "/node3",
              "chmod 755 " + dir,
              "start /usr/bin/etcd");
      assertThat(cluster.directory().resolve("node1/patroni.yml")).exists();
    }
  }
}
