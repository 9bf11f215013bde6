package io.leasehold.reliability.ha;

import java.nio.file.Path;
import java.util.List;

/**
 * The configuration {@link PatroniCluster} writes for each node, and the command lines it starts
 * etcd and each node's Patroni with.
 */
final class PatroniConfig {
  /** PostgreSQL 15 from Debian, which reliability/ha/install.sh installs. */
  static final Path PG_BIN = Path.of("/usr/lib/postgresql/15/bin");

  private PatroniConfig() {}

  /**
   * One node's {@code patroni.yml}: etcd on loopback, PostgreSQL 15 with {@code fsync} and
   * synchronous commit on, synchronous mode (strict) when asked.
   */
  static String node(
      String name, int pgPort, int restPort, Path home, int etcdPort, boolean synchronous) {
    String sync = synchronous ? "true" : "false";
    return String.join(
        "\n",
        "scope: leasehold-ha",
        "namespace: /leasehold/",
        "name: " + name,
        "log:",
        "  level: WARNING",
        "restapi:",
        "  listen: 127.0.0.1:" + restPort,
        "  connect_address: 127.0.0.1:" + restPort,
        "etcd3:",
        "  hosts: 127.0.0.1:" + etcdPort,
        "bootstrap:",
        "  dcs:",
        "    ttl: 10",
        "    loop_wait: 1",
        "    retry_timeout: 4",
        "    maximum_lag_on_failover: 1048576",
        "    synchronous_mode: " + sync,
        "    synchronous_mode_strict: " + sync,
        "    postgresql:",
        "      use_pg_rewind: true",
        "      use_slots: true",
        "      parameters:",
        "        wal_log_hints: 'on'",
        "        wal_retrieve_retry_interval: 500ms",
        "        max_connections: 200",
        "        fsync: 'on'",
        "        synchronous_commit: 'on'",
        "  initdb:",
        "    - encoding: UTF8",
        "    - data-checksums",
        "  pg_hba:",
        "    - local all all trust",
        "    - host replication replicator 127.0.0.1/32 md5",
        "    - host all all 127.0.0.1/32 md5",
        "postgresql:",
        "  listen: 127.0.0.1:" + pgPort,
        "  connect_address: 127.0.0.1:" + pgPort,
        "  data_dir: " + home.resolve("data"),
        "  bin_dir: " + PG_BIN,
        "  pgpass: " + home.resolve("pgpass"),
        "  authentication:",
        "    replication:",
        "      username: replicator",
        "      password: replicator",
        "    superuser:",
        "      username: " + PatroniCluster.USER,
        "      password: " + PatroniCluster.PASSWORD,
        "    rewind:",
        "      username: rewinder",
        "      password: rewinder",
        "  parameters:",
        "    unix_socket_directories: '" + home + "'",
        "");
  }

  /** etcd alone on loopback, its data in {@code dataDir}. */
  static List<String> etcdCommand(Path dataDir, int clientPort, int peerPort) {
    return List.of(
        "/usr/bin/etcd",
        "--name",
        "ha",
        "--data-dir",
        dataDir.toString(),
        "--listen-client-urls",
        "http://127.0.0.1:" + clientPort,
        "--advertise-client-urls",
        "http://127.0.0.1:" + clientPort,
        "--listen-peer-urls",
        "http://127.0.0.1:" + peerPort,
        "--initial-advertise-peer-urls",
        "http://127.0.0.1:" + peerPort,
        "--initial-cluster",
        "ha=http://127.0.0.1:" + peerPort);
  }

  /**
   * A node's Patroni as the {@code postgres} user with a clean environment: an inherited {@code
   * PGPASSWORD} or {@code PGUSER} breaks pg_rewind and replication.
   */
  static List<String> patroniCommand(Path home) {
    return List.of(
        "runuser",
        "-u",
        "postgres",
        "--",
        "env",
        "-i",
        "PATH=/usr/bin:/bin",
        "HOME=" + home,
        "LANG=C.UTF-8",
        "/usr/bin/patroni",
        home.resolve("patroni.yml").toString());
  }
}
