package io.leasehold.lease.acquire;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.fencing.LeaseKey;
import io.leasehold.lease.AccessPolicy;
import io.leasehold.lease.AcquireResult;
import io.leasehold.lease.Lease;
import io.leasehold.lease.LeaseStore;
import io.leasehold.lease.support.LeaseDatabase;
import io.leasehold.lease.support.LockWaits;
import io.leasehold.testing.SingleServerOnly;
import io.leasehold.testing.Sql;
import io.leasehold.testing.TestDataSources;
import io.leasehold.testing.TestDatabaseExtension;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * On one PostgreSQL a key the store has been granted and never found taken gets the acquire's
 * update alone, without the holder's part; every other key gets the full acquire, which answers a
 * refusal with the holder's row in one round trip. The choice never changes an answer: a key the
 * update alone does not grant goes on to the full acquire, and is answered Busy with its holder
 * (CONTRACT C18), without a fence drawn.
 */
@SingleServerOnly("a Citus coordinator always gets the full acquire (it refuses the update alone)")
class UpdateAloneTest {
  @RegisterExtension static final TestDatabaseExtension db = LeaseDatabase.extension();

  private final List<String> sent = new CopyOnWriteArrayList<>();

  @BeforeEach
  void clear() {
    sent.clear();
  }

  /** A store whose statements are recorded in {@link #sent}. */
  private LeaseStore recordedStore() {
    return LeaseStore.builder(TestDataSources.recording(db.dataSource(), sent))
        .accessPolicy(AccessPolicy.allowAll())
        .ttl(Duration.ofSeconds(30))
        .defaultHolder("recorded")
        .build();
  }

  /** The acquires among the statements sent since the last call, by form, and clears the record. */
  private List<String> acquiresSent() {
    List<String> forms =
        sent.stream()
            .map(
                sql ->
                    sql.contains("INSERT INTO")
                        ? "insert"
                        : !sql.contains("SET run_id")
                            ? ""
                            : sql.contains("UNION ALL") ? "full" : "update alone")
            .filter(form -> !form.isEmpty())
            .toList();
    sent.clear();
    return forms;
  }

  private static long fencesDrawn() throws Exception {
    return ((Number)
            Sql.query(db.dataSource(), "SELECT last_value FROM leasehold_fence_seq").get(0).get(0))
        .longValue();
  }

  @Test
  void aKeyGrantedBeforeGetsTheUpdateAloneAndARisingFence() throws Exception {
    LeaseKey key = LeaseKey.of("acct", "update-alone-again");
    try (LeaseStore store = recordedStore()) {
      Lease first = ((AcquireResult.Acquired) store.tryAcquire(key, "acct")).lease();
      assertThat(acquiresSent()).containsExactly("full", "insert");
      first.release();
      acquiresSent();

      Lease second = ((AcquireResult.Acquired) store.tryAcquire(key, "acct")).lease();
      assertThat(acquiresSent()).containsExactly("update alone");
      assertThat(second.fence()).isGreaterThan(first.fence());
      assertThat(second.runId()).isNotEqualTo(first.runId());
      second.release();
    }
  }

  @Test
  void aKeyTakenSinceIsBusyWithItsHolderAndKeepsTheFullAcquire() throws Exception {
    LeaseKey key = LeaseKey.of("acct", "update-alone-taken");
    try (LeaseStore store = recordedStore();
        LeaseStore other =
            LeaseStore.builder(db.dataSource())
                .accessPolicy(AccessPolicy.allowAll())
                .ttl(Duration.ofSeconds(30))
                .defaultHolder("other")
                .build()) {
      ((AcquireResult.Acquired) store.tryAcquire(key, "acct")).lease().release();
      Lease theirs = ((AcquireResult.Acquired) other.tryAcquire(key, "acct")).lease();
      acquiresSent();
      long drawn = fencesDrawn();

      AcquireResult refused = store.tryAcquire(key, "acct");
      assertThat(acquiresSent()).containsExactly("update alone", "full");
      assertThat(refused)
          .isInstanceOfSatisfying(
              AcquireResult.Busy.class,
              busy -> {
                var owner = busy.status().owner().orElseThrow();
                assertThat(owner.holder()).isEqualTo("other");
                assertThat(owner.runId()).isEqualTo(theirs.runId());
                assertThat(owner.fence()).isEqualTo(theirs.fence());
              });
      assertThat(fencesDrawn()).as("a refusal draws no fence").isEqualTo(drawn);

      // Found taken once: the full acquire from now on, refused in one statement...
      assertThat(store.tryAcquire(key, "acct")).isInstanceOf(AcquireResult.Busy.class);
      assertThat(acquiresSent()).containsExactly("full");
      // ...and granted by it too, with the fence above the holder's.
      theirs.release();
      Lease mine = ((AcquireResult.Acquired) store.tryAcquire(key, "acct")).lease();
      assertThat(acquiresSent()).containsExactly("full");
      assertThat(mine.fence()).isGreaterThan(theirs.fence());
      mine.release();
      ((AcquireResult.Acquired) store.tryAcquire(key, "acct")).lease().release();
      assertThat(acquiresSent()).containsExactly("full");
    }
  }

  @Test
  void aLockWaitPastTheLockTimeoutIsBusyAndTheKeyKeepsTheFullAcquire() throws Exception {
    LeaseKey key = LeaseKey.of("acct", "update-alone-locked");
    try (LeaseStore store =
        LeaseStore.builder(TestDataSources.recording(db.dataSource(), sent))
            .accessPolicy(AccessPolicy.allowAll())
            .ttl(Duration.ofSeconds(30))
            .lockTimeout(Duration.ofMillis(200))
            .build()) {
      ((AcquireResult.Acquired) store.tryAcquire(key, "acct")).lease().release();
      acquiresSent();
      // Another connection holds the free row locked, as a contender taking the key does.
      try (Connection locker = LockWaits.lockRow(db, key)) {
        assertThat(store.tryAcquire(key, "acct")).isInstanceOf(AcquireResult.Busy.class);
        assertThat(acquiresSent()).containsExactly("update alone");
        locker.rollback();
      }
      ((AcquireResult.Acquired) store.tryAcquire(key, "acct")).lease().release();
      assertThat(acquiresSent()).as("found taken: the full acquire").containsExactly("full");
    }
  }

  @Test
  void aKeyItsOwnStoreLetExpireIsTakenOverByTheUpdateAlone() throws Exception {
    LeaseKey key = LeaseKey.of("acct", "update-alone-expired");
    try (LeaseStore store =
        LeaseStore.builder(TestDataSources.recording(db.dataSource(), sent))
            .accessPolicy(AccessPolicy.allowAll())
            .ttl(Duration.ofSeconds(30))
            .build()) {
      Lease first = ((AcquireResult.Acquired) store.tryAcquire(key, "acct")).lease();
      // The lease ends without a release: its row's expiry moved into the past, as a run that
      // stopped renewing leaves it once its TTL has passed.
      Sql.update(
          db.dataSource(),
          "UPDATE leasehold_lease SET expires_at = statement_timestamp() - interval '1 second'"
              + " WHERE account_id = ? AND session_id = ?",
          key.accountId(),
          key.sessionId());
      acquiresSent();

      Lease second = ((AcquireResult.Acquired) store.tryAcquire(key, "acct")).lease();
      assertThat(acquiresSent()).containsExactly("update alone");
      assertThat(second.fence()).isGreaterThan(first.fence());
      assertThat(
              Sql.query(
                      db.dataSource(),
                      "SELECT took_over FROM leasehold_lease WHERE account_id = ? AND session_id = ?",
                      key.accountId(),
                      key.sessionId())
                  .get(0)
                  .get(0))
          .isEqualTo(true);
      second.release();
    }
  }
}
