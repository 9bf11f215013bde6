package io.leasehold.reliability;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * An embedded PostgreSQL that can be restarted on the same port and data directory, so clients
 * see a real server restart: every connection dropped, the data kept. Not thread-safe; the
 * torture run restarts it from one thread.
 */
final class RestartablePostgres implements AutoCloseable {
  private final Path dataDir;
  private int port;
  private EmbeddedPostgres pg;

  RestartablePostgres() {
    try {
      this.dataDir = Files.createTempDirectory("leasehold-torture-pg-");
      Files.delete(dataDir); // zonky creates and initializes it
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    start();
    port = pg.getPort();
  }

  private void start() {
    try {
      EmbeddedPostgres.Builder b =
          EmbeddedPostgres.builder()
              .setDataDirectory(dataDir)
              .setCleanDataDirectory(false)
              .setServerConfig("max_connections", "300")
              .setServerConfig("fsync", "off")
              .setServerConfig("synchronous_commit", "off");
      if (port != 0) {
        b.setPort(port);
      }
      pg = b.start();
    } catch (IOException e) {
      throw new UncheckedIOException("could not start the embedded PostgreSQL", e);
    }
  }

  String jdbcUrl() {
    return "jdbc:postgresql://localhost:" + port + "/postgres";
  }

  /** Stops the server (every connection drops) and starts it again on the same data. */
  void restart() {
    try {
      pg.close();
    } catch (IOException e) {
      throw new UncheckedIOException("could not stop the embedded PostgreSQL", e);
    }
    start();
  }

  @Override
  public void close() {
    try {
      pg.close();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
