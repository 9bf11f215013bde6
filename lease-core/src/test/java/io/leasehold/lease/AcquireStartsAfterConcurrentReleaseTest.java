package io.leasehold.lease;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.fencing.LeaseKey;
import io.leasehold.testing.TestDatabaseExtension;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Regression test for what the long torture run found: an acquire reads the database clock before
 * it waits for the row lock, so when a release committed during that wait, the new lease was
 * recorded as starting before the old one ended (by the length of the wait). A new lease must
 * never start before its predecessor's release.
 */
class AcquireStartsAfterConcurrentReleaseTest {
  @RegisterExtension static final TestDatabaseExtension db = LeaseDatabase.extension();

  @Test
  void takeoverOfAReleaseThatCommittedDuringTheWaitStartsAfterIt() throws Exception {
    LeaseKey key = LeaseKey.of("acct", "handover");
    try (LeaseStore store = LeaseStore.builder(db.dataSource()).accessPolicy(AccessPolicy.allowAll()).build()) {
      ((AcquireResult.Acquired) store.tryAcquire(key, "acct")).lease();
      try (Connection side = db.database().newConnection()) {
        side.setAutoCommit(false);
        try (Statement s = side.createStatement()) {
          // The release has taken the row lock but not yet read its clock.
          s.execute("SELECT 1 FROM leasehold_lease WHERE session_id = 'handover' FOR UPDATE");
        }
        // The acquire reads its clock now, then waits for the row lock.
        CompletableFuture<AcquireResult> acquire = CompletableFuture.supplyAsync(() -> store.tryAcquire(key, "acct"));
        Thread.sleep(200);
        assertThat(acquire).isNotDone();
        Instant releasedAt;
        try (Statement s = side.createStatement();
            ResultSet rs =
                s.executeQuery(
                    "UPDATE leasehold_lease SET released_at = clock_timestamp(), expires_at = clock_timestamp()"
                        + " WHERE session_id = 'handover' RETURNING released_at")) {
          rs.next();
          releasedAt = rs.getObject(1, OffsetDateTime.class).toInstant();
        }
        side.commit();
        Lease next = ((AcquireResult.Acquired) acquire.get(5, TimeUnit.SECONDS)).lease();
        assertThat(next.acquiredAt()).isAfterOrEqualTo(releasedAt);
        assertThat(next.expiresAt()).isEqualTo(next.acquiredAt().plus(store.ttl()));
      }
    }
  }
}
