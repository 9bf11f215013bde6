package io.leasehold.examples.boot;

import io.leasehold.devdb.LocalPostgres;
import io.leasehold.lease.AccessPolicy;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

/**
 * A small service on the Leasehold starter: one fenced endpoint ({@link NotesController}) that
 * writes a session's note only while its run holds the session's lease. Everything else (the store,
 * the file store guard, meters, health, the held-lease endpoint, release at shutdown) comes from
 * the starter and {@code application.properties}.
 *
 * <p>{@code mvn -pl examples/spring-boot exec:java} runs it on a local PostgreSQL 17 that it starts
 * (and stops at exit) when no {@code --spring.datasource.url} is given.
 */
@SpringBootApplication
public class NotesApplication {
  /**
   * Who may run which session: the starter requires this bean. Here the caller (a header in the
   * controller; an authenticated principal in a real service) must own the account.
   *
   * @return the policy
   */
  // region policy
  @Bean
  AccessPolicy accessPolicy() {
    return (caller, key) -> caller.equals(key.accountId());
  }

  // endregion

  /**
   * Starts the service.
   *
   * @param args Spring Boot arguments
   */
  public static void main(String[] args) {
    start(args);
  }

  /**
   * Starts the service, on a local PostgreSQL when no data source URL is given.
   *
   * @param args Spring Boot arguments
   * @return the running context
   */
  public static ConfigurableApplicationContext start(String... args) {
    List<String> all = new ArrayList<>(Arrays.asList(args));
    if (all.stream().noneMatch(a -> a.startsWith("--spring.datasource.url="))) {
      LocalPostgres db = LocalPostgres.start();
      all.add("--spring.datasource.url=" + db.jdbcUrl());
      all.add("--spring.datasource.username=" + db.user());
      all.add("--spring.datasource.password=" + db.password());
      if (all.stream().noneMatch(a -> a.startsWith("--leasehold.guards.file-store-root="))) {
        // A new database starts its fences at 1 again, so it gets a new file store too: a store
        // that admitted fence 3 under an earlier database rightly refuses this one's fence 1.
        all.add("--leasehold.guards.file-store-root=" + freshDirectory());
      }
    }
    return SpringApplication.run(NotesApplication.class, all.toArray(String[]::new));
  }

  private static Path freshDirectory() {
    try {
      return Files.createTempDirectory("leasehold-notes-");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create the example's file store directory", e);
    }
  }
}
