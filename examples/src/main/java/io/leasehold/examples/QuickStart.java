package io.leasehold.examples;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.leasehold.adapters.file.FencedFileStore;
import io.leasehold.devdb.LocalPostgres;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.TokenVerifier;
import io.leasehold.fencing.WriteRefusedException;
import io.leasehold.lease.AccessPolicy;
import io.leasehold.lease.AcquireRequest;
import io.leasehold.lease.AcquireResult;
import io.leasehold.lease.Lease;
import io.leasehold.lease.LeaseSchema;
import io.leasehold.lease.LeaseStatus;
import io.leasehold.lease.LeaseStore;
import io.leasehold.lease.RunOutcome;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * The README's usage example, compiled on every build so it cannot drift from the API. Each region
 * between {@code // region} and {@code // endregion} is quoted in README.md or docs/.
 */
public final class QuickStart {
  private QuickStart() {}

  /**
   * Acquires a session's lease, works under it and releases it.
   *
   * @param jdbcUrl a PostgreSQL database
   * @param user its user
   * @param password its password
   */
  public static void run(String jdbcUrl, String user, String password) {
    // region quickstart
    HikariDataSource dataSource = new HikariDataSource();
    dataSource.setJdbcUrl(jdbcUrl);
    dataSource.setUsername(user);
    dataSource.setPassword(password);
    LeaseSchema.defaults().apply(dataSource); // Liquibase; or run LeaseSchema.sqlScript() yourself

    try (LeaseStore store =
        LeaseStore.builder(dataSource)
            .accessPolicy(AccessPolicy.callerOwnsAccount()) // your authorization decision
            .ttl(Duration.ofSeconds(30))
            .dedicatedPool(
                true) // the pool serves the store alone: timeouts set once per connection
            .build()) {
      LeaseKey session = LeaseKey.of("acct-7", "chat-1");
      AcquireResult result =
          store.tryAcquire(AcquireRequest.of(session, "acct-7").withHolder("desktop"));
      if (result instanceof AcquireResult.Acquired acquired) {
        try (Lease lease = acquired.lease().keepAlive()) {
          FencingToken token = lease.token(); // throws LeaseLostException once the lease is lost
          System.out.println("running with fence " + token.fence());
        } // close() releases
      } else if (result instanceof AcquireResult.Busy busy) {
        LeaseStatus status = busy.status(); // who runs, and until when
        System.out.println(
            "busy: "
                + status
                    .owner()
                    .map(owner -> owner.holder() + " runs until " + owner.expiresAt())
                    .orElse("another run is taking it over"));
      } else { // AcquireResult.TooLate: granted after the local deadline, and released again
        System.out.println("the database answered too late; try again");
      }
    }
    // endregion
    dataSource.close();
  }

  /**
   * The one-call form.
   *
   * @param store the store
   * @return what the work returned, or null if it did not complete
   */
  public static String runExclusive(LeaseStore store) {
    // region run-exclusive
    RunOutcome<String> outcome =
        store.runExclusive(
            AcquireRequest.of(LeaseKey.of("acct-7", "chat-1"), "acct-7"),
            lease -> {
              // The calling thread is interrupted if the lease is lost.
              return "generated with fence " + lease.token().fence();
            });
    if (outcome instanceof RunOutcome.Completed<String> done) {
      return done.value();
    }
    // RunOutcome.NotAcquired (someone else runs) or RunOutcome.Lost (stopped mid-way)
    return null;
    // endregion
  }

  /**
   * A PostgreSQL 17 for development, without installing one: the lease schema applied, a lease
   * taken, the server stopped.
   *
   * @return the fence of the lease taken
   */
  public static long onALocalPostgres() {
    // region local-postgres
    try (LocalPostgres pg = LocalPostgres.start(); // PostgreSQL 17, durable commits, a free port
        HikariDataSource dataSource = new HikariDataSource()) {
      dataSource.setJdbcUrl(pg.jdbcUrl());
      dataSource.setUsername(pg.user());
      dataSource.setPassword(pg.password());
      LeaseSchema.defaults().apply(dataSource);
      try (LeaseStore store =
          LeaseStore.builder(dataSource).accessPolicy(AccessPolicy.allowAll()).build()) {
        AcquireResult r = store.tryAcquire(LeaseKey.of("acct-7", "chat-1"), "acct-7");
        return r instanceof AcquireResult.Acquired a ? a.lease().fence() : -1;
      }
    } // stops the server and deletes its temporary data directory
    // endregion
  }

  /**
   * A store on a small pool of its own, which may keep its timeouts on its connections.
   *
   * @param url a PostgreSQL database with the lease schema
   * @param user its user
   * @param password its password
   * @return the fence of the lease taken, or -1 if the session was busy
   */
  public static long onItsOwnPool(String url, String user, String password) {
    // region dedicated-pool
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(url);
    config.setUsername(user);
    config.setPassword(password);
    config.setMaximumPoolSize(4); // short statements: a few connections serve many threads
    try (HikariDataSource leasePool = new HikariDataSource(config); // used by the store alone
        LeaseStore store =
            LeaseStore.builder(leasePool)
                .accessPolicy(AccessPolicy.allowAll())
                .dedicatedPool(true)
                .build()) {
      AcquireResult r = store.tryAcquire(LeaseKey.of("acct-7", "chat-2"), "acct-7");
      return r instanceof AcquireResult.Acquired a ? a.lease().fence() : -1;
    }
    // endregion
  }

  /**
   * Waits up to 5 s for a session that another run may hold, then works under its lease.
   *
   * @param store the store
   * @return the fence worked with, or -1 if the session stayed busy
   * @throws InterruptedException if interrupted while waiting
   */
  public static long waitForTheSession(LeaseStore store) throws InterruptedException {
    // region wait
    AcquireRequest request = AcquireRequest.of(LeaseKey.of("acct-7", "chat-1"), "acct-7");
    AcquireResult result = store.acquire(request, Duration.ofSeconds(5)); // wakes on release
    if (result instanceof AcquireResult.Acquired acquired) {
      try (Lease lease = acquired.lease().keepAlive()) {
        return lease.token().fence();
      }
    }
    return -1; // still Busy after 5 s (or TooLate: the database answered after the deadline)
    // endregion
  }

  /**
   * The same wait without a waiting thread.
   *
   * @param store the store
   * @param executor where the tries run
   * @return the answer, when it comes
   */
  public static CompletableFuture<AcquireResult> waitAsync(LeaseStore store, Executor executor) {
    // region wait-async
    CompletableFuture<AcquireResult> answer =
        store.acquireAsync(
            AcquireRequest.of(LeaseKey.of("acct-7", "chat-1"), "acct-7"),
            Duration.ofSeconds(5),
            executor);
    // answer.cancel(true) gives up: no more tries, and a lease granted meanwhile is released
    // endregion
    return answer;
  }

  /**
   * A fenced write under a kept lease.
   *
   * @param store the store
   * @param root a directory for the file store
   * @return true if the write was admitted
   */
  public static boolean fencedWrite(LeaseStore store, Path root) {
    // region fenced-write
    FencedFileStore files = FencedFileStore.open(root, TokenVerifier.trustEveryWriter());
    AcquireResult result = store.tryAcquire(LeaseKey.of("acct-7", "chat-1"), "acct-7");
    if (!(result instanceof AcquireResult.Acquired acquired)) {
      return false; // someone else runs this session
    }
    try (Lease lease = acquired.lease().keepAlive()) {
      // Pass the lease, not a copied token: once it is lost, the write is refused locally.
      files.write(lease, "acct-7/chat-1/answer.md", "# Answer".getBytes(StandardCharsets.UTF_8));
      return true;
    } catch (WriteRefusedException e) {
      // Refused, nothing written: a newer run has written (StaleFenceException), this lease is
      // lost (LeaseLostException), or the token is not good here (TokenVerificationException).
      return false;
    }
    // endregion
  }
}
