package io.leasehold.reliability.ha;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A real PostgreSQL HA cluster on loopback: one etcd and three PostgreSQL nodes managed by Patroni
 * (Debian's packages, installed by {@code reliability/ha/install.sh}), with synchronous replication
 * ({@code synchronous_mode} and {@code synchronous_mode_strict}) or, for the negative control,
 * asynchronous. Clients reach the primary through pgjdbc's multi-host URL ({@link #jdbcUrl}).
 *
 * <p>Patroni and PostgreSQL run as the {@code postgres} user with a clean environment (an inherited
 * {@code PGPASSWORD} or {@code PGUSER} breaks pg_rewind and replication), so this needs root. Every
 * port is chosen free at start; {@link #close} kills every process and deletes the directory.
 */
public final class PatroniCluster implements AutoCloseable {
  /** Superuser name and password; the torture workers' defaults. */
  public static final String USER = "postgres";

  /** The superuser's password. */
  public static final String PASSWORD = "postgres";

  private final Path dir;
  private final boolean synchronous;
  private final PrintStream log;
  private final PatroniRest rest = new PatroniRest();
  private final int etcdPort;
  private final int etcdPeerPort;
  private final List<Node> nodes = new ArrayList<>();
  private final Commands commands;
  private Process etcd;

  /**
   * How the cluster runs a command to its end and starts a process: the system's, or a test's
   * record.
   */
  interface Commands {
    /** The system's: {@link #run(String...)} below and {@link ProcessBuilder#start()}. */
    Commands SYSTEM =
        new Commands() {
          @Override
          public void run(String... command) {
            PatroniCluster.run(command);
          }

          @Override
          public Process start(ProcessBuilder builder) throws IOException {
            return builder.start();
          }
        };

    /** Runs a command to its end; throws if it fails. */
    void run(String... command);

    /** Starts a process. */
    Process start(ProcessBuilder builder) throws IOException;
  }

  /** One PostgreSQL node and its Patroni. */
  private static final class Node {
    final String name;
    final int pgPort;
    final int restPort;
    final Path home;
    Process patroni;

    Node(String name, int pgPort, int restPort, Path home) {
      this.name = name;
      this.pgPort = pgPort;
      this.restPort = restPort;
      this.home = home;
    }
  }

  PatroniCluster(boolean synchronous, PrintStream log, Commands commands) throws IOException {
    this.synchronous = synchronous;
    this.log = log;
    this.commands = commands;
    this.dir = io.leasehold.reliability.RunDirectory.create("ha-");
    this.etcdPort = freePort();
    this.etcdPeerPort = freePort();
    for (int i = 1; i <= 3; i++) {
      nodes.add(new Node("node" + i, freePort(), freePort(), dir.resolve("node" + i)));
    }
  }

  /**
   * Starts etcd and three Patroni nodes and waits until a leader accepts writes and, when
   * synchronous, a synchronous standby is attached.
   *
   * @param synchronous synchronous replication (the safe configuration) or asynchronous
   * @param log where progress lines go
   * @return the running cluster
   * @throws IllegalStateException if Patroni, etcd or PostgreSQL 15 is missing (run
   *     reliability/ha/install.sh), or the cluster does not come up in time
   */
  public static PatroniCluster start(boolean synchronous, PrintStream log) {
    requireInstalled();
    PatroniCluster c;
    try {
      c = new PatroniCluster(synchronous, log, Commands.SYSTEM);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    try {
      c.startAll();
      return c;
    } catch (RuntimeException | Error e) {
      c.close();
      throw e;
    }
  }

  private static void requireInstalled() {
    List<String> missing = new ArrayList<>();
    for (Path p :
        List.of(
            Path.of("/usr/bin/patroni"),
            Path.of("/usr/bin/etcd"),
            PatroniConfig.PG_BIN.resolve("postgres"))) {
      if (!Files.isExecutable(p)) {
        missing.add(p.toString());
      }
    }
    if (!missing.isEmpty()) {
      throw new IllegalStateException(
          "missing "
              + missing
              + ": run reliability/ha/install.sh (as root: apt-get install patroni etcd-server"
              + " postgresql-15)");
    }
  }

  private void startAll() {
    prepareAndStartEtcd();
    // The first node bootstraps alone, so it is the leader; the others then clone it.
    startPatroni(nodes.get(0));
    awaitLeader(Duration.ofSeconds(60));
    startPatroni(nodes.get(1));
    startPatroni(nodes.get(2));
    awaitHealthy(Duration.ofSeconds(90));
    log.println(
        "ha: cluster up, leader "
            + leader().orElse("?")
            + (synchronous ? ", synchronous" : ", asynchronous"));
  }

  /**
   * Makes the nodes' homes, hands them to {@code postgres}, then starts etcd. Only the node homes
   * change owner, and before etcd runs: a {@code chown -R} of the whole run directory once walked
   * etcd's data directory while etcd (root's, and it stays root's) created and removed {@code
   * member/snap/.touch} there, and failed when the file vanished between the listing and the chown.
   * The run directory itself stays root's; {@code postgres} only needs to pass through it.
   */
  void prepareAndStartEtcd() {
    try {
      for (Node n : nodes) {
        Files.createDirectories(n.home);
        Files.writeString(
            n.home.resolve("patroni.yml"),
            PatroniConfig.node(n.name, n.pgPort, n.restPort, n.home, etcdPort, synchronous));
        commands.run("chown", "-R", "postgres:postgres", n.home.toString());
      }
      commands.run("chmod", "755", dir.toString());
      Files.createDirectories(dir.resolve("etcd"));
      etcd =
          commands.start(
              new ProcessBuilder(
                      PatroniConfig.etcdCommand(dir.resolve("etcd"), etcdPort, etcdPeerPort))
                  .redirectErrorStream(true)
                  .redirectOutput(dir.resolve("etcd.log").toFile()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private void startPatroni(Node n) {
    try {
      n.patroni =
          commands.start(
              new ProcessBuilder(PatroniConfig.patroniCommand(n.home))
                  .redirectErrorStream(true)
                  .redirectOutput(
                      ProcessBuilder.Redirect.appendTo(n.home.resolve("patroni.log").toFile())));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * The JDBC URL that reaches the current primary: all three nodes, {@code
   * targetServerType=primary}, short connect and recheck times.
   *
   * @return the URL
   */
  public String jdbcUrl() {
    StringBuilder hosts = new StringBuilder();
    for (Node n : nodes) {
      if (hosts.length() > 0) {
        hosts.append(',');
      }
      hosts.append("127.0.0.1:").append(n.pgPort);
    }
    return "jdbc:postgresql://"
        + hosts
        + "/postgres?targetServerType=primary&hostRecheckSeconds=1"
        + "&connectTimeout=2&loginTimeout=4&socketTimeout=20";
  }

  /**
   * The JDBC URL of one node, for checks on a specific server.
   *
   * @param name the node
   * @return its URL
   */
  public String nodeUrl(String name) {
    return "jdbc:postgresql://127.0.0.1:" + node(name).pgPort + "/postgres";
  }

  /**
   * The node names.
   *
   * @return node1, node2, node3
   */
  public List<String> nodeNames() {
    return nodes.stream().map(n -> n.name).toList();
  }

  private Node node(String name) {
    return nodes.stream()
        .filter(n -> n.name.equals(name))
        .findFirst()
        .orElseThrow(() -> new IllegalArgumentException("no node " + name));
  }

  /**
   * Patroni's view of the cluster, from any node that answers.
   *
   * @return the {@code /cluster} document, or empty if no node answers
   */
  public Optional<JsonNode> cluster() {
    return rest.cluster(nodes.stream().map(n -> n.restPort).toList());
  }

  /**
   * The current leader, by Patroni.
   *
   * @return its name, or empty while there is none
   */
  public Optional<String> leader() {
    return cluster().flatMap(PatroniRest::leader);
  }

  private boolean healthy() {
    return cluster().map(c -> PatroniRest.healthy(c, synchronous)).orElse(false);
  }

  private void awaitLeader(Duration max) {
    await(max, () -> leader().isPresent(), "no leader");
  }

  /**
   * Waits until every node runs and replicates again.
   *
   * @param max the longest wait
   * @throws IllegalStateException if it does not happen in time
   */
  public void awaitHealthy(Duration max) {
    await(max, this::healthy, "cluster not healthy");
  }

  private void await(Duration max, java.util.function.BooleanSupplier ok, String what) {
    long deadline = System.nanoTime() + max.toNanos();
    while (!ok.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            what
                + " after "
                + max
                + ": "
                + cluster().map(JsonNode::toString).orElse("no answer")
                + "; logs in "
                + dir);
      }
      try {
        Thread.sleep(200);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted", e);
      }
    }
  }

  /**
   * Kills the leader the hard way: SIGKILL of its Patroni and of its postmaster (the postmaster
   * survives its Patroni otherwise). The node stays down until {@link #restart}.
   *
   * @return the killed node's name
   * @throws IllegalStateException if there is no leader
   */
  public String killLeader() {
    String name = leader().orElseThrow(() -> new IllegalStateException("no leader to kill"));
    kill(node(name));
    return name;
  }

  private void kill(Node n) {
    Optional<Long> postmaster = postmasterPid(n);
    if (n.patroni != null) {
      n.patroni.descendants().forEach(ProcessHandle::destroyForcibly);
      n.patroni.destroyForcibly();
      try {
        n.patroni.waitFor(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    // The postmaster is often Patroni's descendant and gone by now; kill only one still alive,
    // and take a failed kill of one that exited meanwhile as done (its end is what kill is for).
    postmaster
        .flatMap(ProcessHandle::of)
        .filter(ProcessHandle::isAlive)
        .ifPresent(
            h -> {
              try {
                commands.run("kill", "-9", Long.toString(h.pid()));
              } catch (RuntimeException e) {
                if (h.isAlive()) {
                  throw e;
                }
              }
              h.onExit().orTimeout(10, TimeUnit.SECONDS).exceptionally(t -> h).join();
            });
  }

  private static Optional<Long> postmasterPid(Node n) {
    Path pidFile = n.home.resolve("data/postmaster.pid");
    try {
      if (!Files.exists(pidFile)) {
        return Optional.empty();
      }
      return Optional.of(Long.parseLong(Files.readAllLines(pidFile).get(0).trim()));
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
  }

  /**
   * Starts a killed node's Patroni again; it rejoins as a replica (through pg_rewind if its
   * timeline diverged).
   *
   * @param name the node
   */
  public void restart(String name) {
    Node n = node(name);
    if (n.patroni != null && n.patroni.isAlive()) {
      return;
    }
    startPatroni(n);
  }

  /**
   * A planned switchover to another running node, through Patroni's REST API.
   *
   * @return "old -> new"
   * @throws IllegalStateException if Patroni refuses
   */
  public String switchover() {
    JsonNode c = cluster().orElseThrow(() -> new IllegalStateException("no node answers"));
    String from = leader().orElseThrow(() -> new IllegalStateException("no leader"));
    String to = PatroniRest.switchoverCandidate(c, from, synchronous);
    rest.switchover(node(from).restPort, from, to);
    return from + " -> " + to;
  }

  /**
   * Whether replication is synchronous.
   *
   * @return true for synchronous_mode with synchronous_mode_strict
   */
  public boolean synchronous() {
    return synchronous;
  }

  /**
   * The directory with every node's data and log.
   *
   * @return the directory
   */
  public Path directory() {
    return dir;
  }

  /** Kills every process and deletes the directory. */
  @Override
  public void close() {
    for (Node n : nodes) {
      kill(n);
    }
    if (etcd != null) {
      etcd.destroyForcibly();
      try {
        etcd.waitFor(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    try (Stream<Path> s = Files.walk(dir)) {
      s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      log.println("ha: could not delete " + dir + ": " + e);
    }
  }

  private static void run(String... command) {
    try {
      Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
      String out =
          new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
      if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
        throw new IllegalStateException(String.join(" ", command) + " failed: " + out);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }
}
