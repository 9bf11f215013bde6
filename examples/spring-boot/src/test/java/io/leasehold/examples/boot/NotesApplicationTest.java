package io.leasehold.examples.boot;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.devdb.LocalPostgres;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.lease.AccessPolicy;
import io.leasehold.lease.AcquireResult;
import io.leasehold.lease.LeaseStatus;
import io.leasehold.lease.LeaseStore;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The example service, started as a user starts it, on an embedded PostgreSQL 17 and a real port:
 * the fenced endpoint, the meters, the health and the release at shutdown.
 */
class NotesApplicationTest {
  private static LocalPostgres db;
  private final HttpClient http = HttpClient.newHttpClient();

  @BeforeAll
  static void startDatabase() {
    db = LocalPostgres.builder().durable(false).start();
  }

  @AfterAll
  static void stopDatabase() {
    db.close();
  }

  private ConfigurableApplicationContext start(Path notes, String... more) {
    java.util.List<String> args =
        new java.util.ArrayList<>(
            java.util.List.of(
                "--server.port=0",
                "--spring.datasource.url=" + db.jdbcUrl(),
                "--spring.datasource.username=" + db.user(),
                "--spring.datasource.password=" + db.password(),
                "--leasehold.guards.file-store-root=" + notes));
    args.addAll(java.util.List.of(more));
    return NotesApplication.start(args.toArray(String[]::new));
  }

  private static String base(ConfigurableApplicationContext app) {
    return "http://localhost:" + app.getEnvironment().getProperty("local.server.port");
  }

  private HttpResponse<String> put(
      ConfigurableApplicationContext app, String path, String caller, String body)
      throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create(base(app) + path))
            .header("X-Caller", caller)
            .PUT(HttpRequest.BodyPublishers.ofString(body))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private HttpResponse<String> get(ConfigurableApplicationContext app, String path)
      throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create(base(app) + path)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void theFencedEndpointMetersHealthAndShutdownRelease(@TempDir Path notes) throws Exception {
    LeaseKey held = LeaseKey.of("alice", "held-at-shutdown");
    // The scheduled digest job would add its own acquires and admissions to the meters counted
    // here.
    try (ConfigurableApplicationContext app = start(notes, "--notes.digest.enabled=false")) {
      HttpResponse<String> written =
          put(app, "/accounts/alice/sessions/chat/note", "alice", "hello");
      assertThat(written.statusCode()).isEqualTo(200);
      assertThat(written.body()).startsWith("written with fence ");
      assertThat(Files.readString(notes.resolve("alice/chat/note.txt"))).isEqualTo("hello");

      assertThat(put(app, "/accounts/alice/sessions/chat/note", "mallory", "x").statusCode())
          .isEqualTo(403);

      // Another run holds the session: the endpoint answers 409 and writes nothing.
      LeaseStore store = app.getBean(LeaseStore.class);
      store.tryAcquire(LeaseKey.of("alice", "busy"), "alice");
      HttpResponse<String> busy = put(app, "/accounts/alice/sessions/busy/note", "alice", "no");
      assertThat(busy.statusCode()).isEqualTo(409);
      assertThat(Files.exists(notes.resolve("alice/busy/note.txt"))).isFalse();

      String acquired = get(app, "/actuator/metrics/leasehold.acquire?tag=outcome:acquired").body();
      assertThat(acquired).contains("\"COUNT\"").contains("\"value\":2.0");
      String admitted =
          get(app, "/actuator/metrics/leasehold.guard.admissions?tag=resource:file").body();
      assertThat(admitted).contains("\"value\":1.0");

      HttpResponse<String> health = get(app, "/actuator/health");
      assertThat(health.statusCode()).isEqualTo(200);
      assertThat(health.body()).contains("\"leasehold\":{").contains("\"keptLeases\"");

      // Without a principal the caller is "actuator", and this policy lets it see no session.
      HttpResponse<String> listing = get(app, "/actuator/leasehold");
      assertThat(listing.statusCode()).isEqualTo(200);
      assertThat(listing.body()).isEqualTo("{\"leases\":[],\"limit\":1000}");

      // A kept lease at shutdown: closing the context releases it.
      ((AcquireResult.Acquired) store.tryAcquire(held, "alice")).lease().keepAlive();
    }
    // Closing released it (LeaseholdAutoConfigurationTest shows how): with the application's 30 s
    // ttl, nothing but a release lets another store take the key at once.
    try (LeaseStore other =
        LeaseStore.builder(db.dataSource()).accessPolicy(AccessPolicy.allowAll()).build()) {
      assertThat(other.tryAcquire(held, "alice")).isInstanceOf(AcquireResult.Acquired.class);
    }
  }

  /**
   * The {@code @SchedulerLock} job: its lock is a lease, and its digest is written with the lock's
   * fence.
   */
  @Test
  void theScheduledJobWritesUnderItsShedLockLockWithTheLocksFence(@TempDir Path notes)
      throws Exception {
    try (ConfigurableApplicationContext app = start(notes, "--notes.digest.every=PT0.2S")) {
      io.leasehold.adapters.file.FencedFileStore files =
          app.getBean(io.leasehold.adapters.file.FencedFileStore.class);
      long bound = System.nanoTime() + java.time.Duration.ofSeconds(30).toNanos();
      java.util.Optional<io.leasehold.adapters.file.StoredFile> digest;
      while ((digest = files.read("scheduler/notes-digest/digest.txt")).isEmpty()) {
        assertThat(System.nanoTime() - bound).as("the digest is written").isNegative();
        Thread.sleep(50);
      }
      long fence = digest.get().writtenBy().orElseThrow().fence();
      assertThat(new String(digest.get().content(), java.nio.charset.StandardCharsets.UTF_8))
          .startsWith("digest by fence " + fence + " at ");
      assertThat(digest.get().writtenBy().orElseThrow().key())
          .isEqualTo(LeaseKey.of("scheduler", "notes-digest"));
      // The lock is a row of the lease table, by the database clock.
      LeaseStatus lock =
          app.getBean(LeaseStore.class)
              .status(LeaseKey.of("scheduler", "notes-digest"), "scheduler");
      assertThat(lock.owner().orElseThrow().fence()).isGreaterThanOrEqualTo(fence);
    }
  }
}
