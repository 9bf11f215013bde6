package io.leasehold.testing;

import org.testcontainers.containers.PostgreSQLContainer;

/** Starts Testcontainers' PostgreSQL; kept apart so nothing loads Testcontainers unless asked. */
final class TestcontainersServer {
  private TestcontainersServer() {}

  static PostgresServer start() {
    PostgreSQLContainer<?> container = new PostgreSQLContainer<>("postgres:17-alpine");
    container.withCommand("postgres", "-c", "max_connections=300", "-c", "fsync=off");
    container.start();
    // Testcontainers' Ryuk removes the container when the JVM exits.
    return PostgresServer.external(
        "Testcontainers PostgreSQL " + container.getJdbcUrl(),
        container.getJdbcUrl(),
        container.getUsername(),
        container.getPassword());
  }
}
