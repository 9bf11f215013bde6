package io.leasehold.lease.acquire;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.fencing.LeaseKey;
import io.leasehold.lease.AccessPolicy;
import io.leasehold.lease.AcquireResult;
import io.leasehold.lease.Lease;
import io.leasehold.lease.LeaseStatus;
import io.leasehold.lease.LeaseStore;
import io.leasehold.lease.LeaseStoreBuilder;
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
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * On one PostgreSQL a key the store has been granted and not found taken since gets the acquire's
 * update alone, without the holder's part; a key it found taken gets a read of its row first, which
 * answers Busy with the holder's row alone while the key is held; a key it has not met gets the
 * full acquire, which answers either way in one round trip. The choice never changes an answer: a
 * key the update alone does not grant, or the read finds free, goes on to the full acquire, and a
 * refusal is Busy with its holder (CONTRACT C18), without a fence drawn. A Citus coordinator gets
 * the read too, but never the update alone.
 */
class AcquireFormsTest {
  private static final String UPDATE_ALONE =
      "a Citus coordinator gets the full acquire where one PostgreSQL gets the update alone";

  @RegisterExtension static final TestDatabaseExtension db = LeaseDatabase.extension();

  private final List<String> sent = new CopyOnWriteArrayList<>();

  @BeforeEach
  void clear() {
    sent.clear();
  }

  /** A store whose statements are recorded in {@link #sent}. */
  private LeaseStore recordedStore() {
    return recordedStore(builder -> builder);
  }

  /** A store whose statements are recorded in {@link #sent}, with {@code more} options. */
  private LeaseStore recordedStore(UnaryOperator<LeaseStoreBuilder> more) {
    return more.apply(
            LeaseStore.builder(TestDataSources.recording(db.dataSource(), sent))
                .accessPolicy(AccessPolicy.allowAll())
                .ttl(Duration.ofSeconds(30))
                .defaultHolder("recorded"))
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
                        : sql.contains("SET run_id")
                            ? sql.contains("UNION ALL") ? "full" : "update alone"
                            : sql.contains("SELECT statement_timestamp(), l.run_id")
                                    && !sql.contains("JOIN")
                                ? "read"
                                : "")
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
  @SingleServerOnly(UPDATE_ALONE)
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
  @SingleServerOnly(UPDATE_ALONE)
  void aKeyTakenSinceIsBusyWithItsHolderFromItsRowAloneUntilGrantedTwiceInARow() throws Exception {
    LeaseKey key = LeaseKey.of("acct", "update-alone-taken");
    try (LeaseStore store = recordedStore();
        LeaseStore other = otherStore(Duration.ZERO)) {
      ((AcquireResult.Acquired) store.tryAcquire(key, "acct")).lease().release();
      Lease theirs = ((AcquireResult.Acquired) other.tryAcquire(key, "acct")).lease();
      acquiresSent();
      long drawn = fencesDrawn();

      AcquireResult refused = store.tryAcquire(key, "acct");
      assertThat(acquiresSent()).containsExactly("update alone", "full");
      assertHeldBy(refused, theirs);
      assertThat(fencesDrawn()).as("a refusal draws no fence").isEqualTo(drawn);

      // Found taken: the key's row is read first, and answers Busy alone...
      AcquireResult readRefusal = store.tryAcquire(key, "acct");
      assertThat(acquiresSent()).containsExactly("read");
      assertHeldBy(readRefusal, theirs);
      assertThat(fencesDrawn()).as("a refusal draws no fence").isEqualTo(drawn);
      // ...while a key the read finds free goes on to the full acquire, which grants it with the
      // fence above the holder's.
      theirs.release();
      Lease mine = ((AcquireResult.Acquired) store.tryAcquire(key, "acct")).lease();
      assertThat(acquiresSent()).containsExactly("read", "full");
      assertThat(mine.fence()).isGreaterThan(theirs.fence());
      mine.release();
      // Granted twice in a row after the read: the update alone again.
      ((AcquireResult.Acquired) store.tryAcquire(key, "acct")).lease().release();
      assertThat(acquiresSent()).containsExactly("read", "full");
      ((AcquireResult.Acquired) store.tryAcquire(key, "acct")).lease().release();
      assertThat(acquiresSent()).containsExactly("update alone");
    }
  }

  @Test
  void aKeyFoundTakenIsAnsweredByItsRowOnOnePostgreSqlAndOnCitus() throws Exception {
    LeaseKey key = LeaseKey.of("acct", "read-first-either");
    try (LeaseStore store = recordedStore();
        LeaseStore other = otherStore(Duration.ZERO)) {
      Lease theirs = ((AcquireResult.Acquired) other.tryAcquire(key, "acct")).lease();
      assertHeldBy(store.tryAcquire(key, "acct"), theirs);
      assertThat(acquiresSent()).as("a key not met yet").containsExactly("full");
      // (On Citus the full acquire draws a fence even when it refuses; the read never does.)
      long drawn = fencesDrawn();
      assertHeldBy(store.tryAcquire(key, "acct"), theirs);
      assertThat(acquiresSent()).as("found taken: the read alone").containsExactly("read");
      assertThat(fencesDrawn()).as("the read draws no fence").isEqualTo(drawn);
      theirs.release();
      Lease mine = ((AcquireResult.Acquired) store.tryAcquire(key, "acct")).lease();
      assertThat(acquiresSent()).containsExactly("read", "full");
      assertThat(mine.fence()).isGreaterThan(theirs.fence());
      mine.release();
    }
  }

  @Test
  void theReadAnswersAsTheFullAcquireDoesForAHeldAndADrainingKey() throws Exception {
    Duration delay = Duration.ofMinutes(5);
    LeaseKey held = LeaseKey.of("acct", "read-first-held");
    LeaseKey expired = LeaseKey.of("acct", "read-first-expired");
    LeaseKey holding = LeaseKey.of("acct", "read-first-holding");
    try (LeaseStore other = otherStore(delay);
        LeaseStore reader = recordedStore(b -> b.takeoverDelay(delay))) {
      Lease theirs = ((AcquireResult.Acquired) other.tryAcquire(held, "acct")).lease();
      Lease ended = ((AcquireResult.Acquired) other.tryAcquire(expired, "acct")).lease();
      // Expired without a release, and still within the takeover delay: draining.
      Sql.update(
          db.dataSource(),
          "UPDATE leasehold_lease SET expires_at = statement_timestamp() - interval '1 second'"
              + " WHERE account_id = ? AND session_id = ?",
          expired.accountId(),
          expired.sessionId());
      Lease kept = ((AcquireResult.Acquired) other.tryAcquire(holding, "acct")).lease();
      kept.releaseHolding(kept.expiresAt());
      for (LeaseKey key : List.of(held, expired, holding)) {
        // The first refusal finds the key taken (the full acquire); the next is the read's.
        AcquireResult byFull = reader.tryAcquire(key, "acct");
        assertThat(acquiresSent()).containsExactly("full");
        AcquireResult byRead = reader.tryAcquire(key, "acct");
        assertThat(acquiresSent()).containsExactly("read");
        assertThat(byFull).isInstanceOf(AcquireResult.Busy.class);
        assertThat(byRead).isInstanceOf(AcquireResult.Busy.class);
        var full = ((AcquireResult.Busy) byFull).status();
        var read = ((AcquireResult.Busy) byRead).status();
        assertThat(read.state()).as(key.sessionId()).isEqualTo(full.state());
        assertThat(read.owner()).as(key.sessionId()).isEqualTo(full.owner());
        assertThat(read.acquirableAt()).as(key.sessionId()).isEqualTo(full.acquirableAt());
      }
      assertThat(((AcquireResult.Busy) reader.tryAcquire(held, "acct")).status().state())
          .isEqualTo(LeaseStatus.State.HELD);
      assertThat(((AcquireResult.Busy) reader.tryAcquire(expired, "acct")).status().state())
          .isEqualTo(LeaseStatus.State.DRAINING);
      assertThat(((AcquireResult.Busy) reader.tryAcquire(holding, "acct")).status().state())
          .isEqualTo(LeaseStatus.State.DRAINING);
      theirs.release();
      ended.release();
    }
  }

  private static LeaseStore otherStore(Duration takeoverDelay) {
    return LeaseStore.builder(db.dataSource())
        .accessPolicy(AccessPolicy.allowAll())
        .ttl(Duration.ofSeconds(30))
        .takeoverDelay(takeoverDelay)
        .defaultHolder("other")
        .build();
  }

  private static void assertHeldBy(AcquireResult result, Lease theirs) {
    assertThat(result)
        .isInstanceOfSatisfying(
            AcquireResult.Busy.class,
            busy -> {
              assertThat(busy.status().state()).isEqualTo(LeaseStatus.State.HELD);
              var owner = busy.status().owner().orElseThrow();
              assertThat(owner.holder()).isEqualTo("other");
              assertThat(owner.runId()).isEqualTo(theirs.runId());
              assertThat(owner.fence()).isEqualTo(theirs.fence());
            });
  }

  @Test
  @SingleServerOnly(UPDATE_ALONE)
  void aLockWaitPastTheLockTimeoutIsBusyAndTheKeyKeepsTheFullAcquire() throws Exception {
    LeaseKey key = LeaseKey.of("acct", "update-alone-locked");
    try (LeaseStore store = recordedStore(b -> b.lockTimeout(Duration.ofMillis(200)))) {
      ((AcquireResult.Acquired) store.tryAcquire(key, "acct")).lease().release();
      acquiresSent();
      // Another connection holds the free row locked, as a contender taking the key does.
      try (Connection locker = LockWaits.lockRow(db, key)) {
        assertThat(store.tryAcquire(key, "acct")).isInstanceOf(AcquireResult.Busy.class);
        assertThat(acquiresSent()).containsExactly("update alone");
        locker.rollback();
      }
      ((AcquireResult.Acquired) store.tryAcquire(key, "acct")).lease().release();
      assertThat(acquiresSent())
          .as("found taken: the row first, free, then the full acquire")
          .containsExactly("read", "full");
    }
  }

  @Test
  @SingleServerOnly(UPDATE_ALONE)
  void aKeyItsOwnStoreLetExpireIsTakenOverByTheUpdateAlone() throws Exception {
    LeaseKey key = LeaseKey.of("acct", "update-alone-expired");
    try (LeaseStore store = recordedStore()) {
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
