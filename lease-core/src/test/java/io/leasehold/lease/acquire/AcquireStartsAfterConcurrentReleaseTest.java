package io.leasehold.lease.acquire;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.fencing.LeaseKey;
import io.leasehold.lease.AccessPolicy;
import io.leasehold.lease.AcquireResult;
import io.leasehold.lease.Lease;
import io.leasehold.lease.LeaseStore;
import io.leasehold.lease.support.LeaseDatabase;
import io.leasehold.testing.TestDatabaseExtension;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Regression test for what the long torture run found: an acquire reads the database clock when its
 * statement starts, so a release that commits after that moment but before the acquire's snapshot
 * carries a later time than the acquire's own. The new lease was recorded as starting before the
 * old one ended. A new lease must never start before its predecessor's release.
 */
class AcquireStartsAfterConcurrentReleaseTest {
  @RegisterExtension static final TestDatabaseExtension db = LeaseDatabase.extension();

  @Test
  void aLeaseNeverStartsBeforeItsPredecessorsRelease() throws Exception {
    LeaseKey key = LeaseKey.of("acct", "handover");
    try (LeaseStore store =
        LeaseStore.builder(db.dataSource()).accessPolicy(AccessPolicy.allowAll()).build()) {
      ((AcquireResult.Acquired) store.tryAcquire(key, "acct")).lease();
      Instant releasedAt;
      try (Connection side = db.database().newConnection();
          Statement s = side.createStatement();
          // A release whose time lies after the next acquire's statement time, as one does that
          // commits between that statement's start and its snapshot.
          ResultSet rs =
              s.executeQuery(
                  "UPDATE leasehold_lease SET released_at = statement_timestamp() + interval '300 milliseconds',"
                      + " expires_at = statement_timestamp() + interval '300 milliseconds'"
                      + " WHERE session_id = 'handover' RETURNING released_at")) {
        rs.next();
        releasedAt = rs.getObject(1, OffsetDateTime.class).toInstant();
      }
      Lease next = ((AcquireResult.Acquired) store.tryAcquire(key, "acct")).lease();
      assertThat(next.acquiredAt()).isAfterOrEqualTo(releasedAt);
      assertThat(next.expiresAt()).isEqualTo(next.acquiredAt().plus(store.ttl()));
      assertThat(store.ttl()).isGreaterThan(Duration.ofMillis(300));
    }
  }
}
