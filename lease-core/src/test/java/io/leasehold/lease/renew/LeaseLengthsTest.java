package io.leasehold.lease.renew;

import static io.leasehold.lease.support.StatusPolling.awaitStatus;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.leasehold.fencing.LeaseKey;
import io.leasehold.lease.AccessPolicy;
import io.leasehold.lease.AcquireRequest;
import io.leasehold.lease.AcquireResult;
import io.leasehold.lease.Lease;
import io.leasehold.lease.LeaseStatus;
import io.leasehold.lease.LeaseStore;
import io.leasehold.lease.ReleaseResult;
import io.leasehold.lease.RenewResult;
import io.leasehold.lease.support.LeaseDatabase;
import io.leasehold.testing.TestDatabaseExtension;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 32: what a ShedLock provider found missing. {@code renew()} could only add the TTL fixed at
 * acquire; a lease shorter than the store's renewal needs could not be asked for (it was rounded
 * up, so an "expired" lock was still live); and nothing kept a key unavailable after a release
 * (lockAtLeastFor), except a timer on the JVM's clock that dies with the process.
 */
class LeaseLengthsTest {
  @RegisterExtension static final TestDatabaseExtension db = LeaseDatabase.extension();

  /** A store and a key of each test's own (JUnit makes an instance per test). */
  private final LeaseStore store =
      LeaseDatabase.store(db, AccessPolicy.allowAll(), Duration.ofSeconds(30));

  private final LeaseKey key = LeaseKey.of("app", "lengths-" + UUID.randomUUID());

  @AfterEach
  void close() {
    store.close();
  }

  private Lease oneShot(Duration ttl) {
    AcquireResult r = store.tryAcquire(AcquireRequest.of(key, "app").oneShot(ttl));
    assertThat(r).isInstanceOf(AcquireResult.Acquired.class);
    return ((AcquireResult.Acquired) r).lease();
  }

  @Test
  void renewToANewLengthSetsTheExpiryFromTheDatabasesNowLongerOrShorter() {
    Lease lease = oneShot(Duration.ofSeconds(2));
    RenewResult longer = lease.renew(Duration.ofSeconds(600));
    assertThat(longer.renewed()).isTrue();
    assertThat(longer.expiresAt())
        .contains(longer.databaseNow().orElseThrow().plus(Duration.ofSeconds(600)));
    assertThat(lease.expiresAt()).isEqualTo(longer.expiresAt().orElseThrow());
    assertThat(store.status(key, "app").owner().orElseThrow().expiresAt())
        .isEqualTo(lease.expiresAt());

    RenewResult shorter = lease.renew(Duration.ofSeconds(5));
    assertThat(shorter.expiresAt())
        .contains(shorter.databaseNow().orElseThrow().plus(Duration.ofSeconds(5)));
    // The handle follows the database down as well as up: it never believes in a longer lease.
    assertThat(lease.expiresAt()).isEqualTo(shorter.expiresAt().orElseThrow());
    assertThat(store.status(key, "app").owner().orElseThrow().expiresAt())
        .isEqualTo(lease.expiresAt());
    assertThat(lease.ttl()).isEqualTo(Duration.ofSeconds(5));
  }

  @Test
  void aOneShotLeaseShorterThanRenewalNeedsIsGrantedAndExpiresOnTime() throws Exception {
    Lease lease = oneShot(Duration.ofMillis(1));
    assertThat(lease.isOneShot()).isTrue();
    // By the database clock it has ended a millisecond later: no takeover delay here, so free.
    awaitStatus(store, key, s -> s.state() == LeaseStatus.State.FREE, Duration.ofSeconds(10));
    assertThat(lease.renew(Duration.ofSeconds(10)).renewed()).isFalse();
    assertThat(lease.isLost()).isTrue();
    Lease next = oneShot(Duration.ofSeconds(5));
    assertThat(next.fence()).isGreaterThan(lease.fence());
  }

  @Test
  void oneShotAndRenewableLengthsAreCheckedWithClearErrorsNotRounded() {
    AcquireRequest request = AcquireRequest.of(key, "app");
    assertThatThrownBy(() -> store.tryAcquire(request.oneShot(Duration.ZERO)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("one-shot ttl");
    assertThatThrownBy(() -> store.tryAcquire(request.oneShot(Duration.ofDays(2))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("one-shot ttl");
    assertThatThrownBy(() -> store.tryAcquire(request.withTtl(Duration.ofMillis(10))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("AcquireRequest.oneShot(ttl)");
    assertThat(store.status(key, "app").owner()).isEmpty();

    Lease kept = ((AcquireResult.Acquired) store.tryAcquire(request)).lease().keepAlive();
    assertThatThrownBy(() -> kept.renew(Duration.ofSeconds(60)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("kept alive");
    assertThatThrownBy(() -> kept.renew(Duration.ofMillis(10)))
        .isInstanceOf(IllegalStateException.class);
    kept.release();

    Lease once = oneShot(Duration.ofSeconds(5));
    assertThatThrownBy(once::keepAlive)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("one-shot");
    assertThatThrownBy(() -> once.renew(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(once.isLost()).isFalse();
  }

  @Test
  void aReleaseHoldingTheKeyKeepsItUnavailableUntilThatInstantInDatabaseTime() throws Exception {
    Lease lease = oneShot(Duration.ofSeconds(60));
    Instant until = lease.acquiredAt().plus(Duration.ofSeconds(2));
    assertThat(lease.releaseHolding(until).outcome()).isEqualTo(ReleaseResult.Outcome.RELEASED);
    assertThat(lease.renew(Duration.ofSeconds(10)).renewed()).isFalse(); // the run's hold ended

    AcquireResult meanwhile =
        store.tryAcquire(AcquireRequest.of(key, "app").oneShot(Duration.ofSeconds(5)));
    assertThat(meanwhile).isInstanceOf(AcquireResult.Busy.class);
    LeaseStatus held = ((AcquireResult.Busy) meanwhile).status();
    assertThat(held.state()).isEqualTo(LeaseStatus.State.DRAINING);
    assertThat(held.acquirableAt()).isEqualTo(until);

    LeaseStatus free =
        awaitStatus(store, key, s -> s.state() == LeaseStatus.State.FREE, Duration.ofSeconds(20));
    assertThat(free.databaseNow()).isAfterOrEqualTo(until);
    Lease next = oneShot(Duration.ofSeconds(5));
    assertThat(next.fence()).isGreaterThan(lease.fence());
    assertThat(next.acquiredAt())
        .isAfterOrEqualTo(until); // no lease starts before its predecessor ended
  }

  @Test
  void aReleaseHoldingTheKeyForTenYearsIsRefusedAndReleasesNothing() {
    Lease lease = oneShot(Duration.ofSeconds(60));
    Instant expiry = lease.expiresAt();
    // Issue 46: the hold had no upper bound, so a release kept the key for ten years, past the
    // store's longest lease and without the renewal the access policy is asked about.
    assertThatThrownBy(() -> lease.releaseHolding(lease.acquiredAt().plus(Duration.ofDays(3650))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("after the lease's expiry " + expiry)
        .hasMessageContaining("nothing was released");
    assertThatThrownBy(() -> lease.releaseHolding(expiry.plusNanos(1000)))
        .isInstanceOf(IllegalArgumentException.class);
    // Nothing changed: still held, with its expiry, and its token still given.
    assertThat(lease.token().fence()).isEqualTo(lease.fence());
    LeaseStatus held = store.status(key, "app");
    assertThat(held.state()).isEqualTo(LeaseStatus.State.HELD);
    assertThat(held.owner().orElseThrow().expiresAt()).isEqualTo(expiry);

    // The lease's own expiry is the longest hold; renewing to a longer length first allows more.
    assertThat(lease.renew(Duration.ofHours(2)).renewed()).isTrue();
    Instant longer = lease.expiresAt();
    assertThat(lease.releaseHolding(longer).outcome()).isEqualTo(ReleaseResult.Outcome.RELEASED);
    LeaseStatus draining = store.status(key, "app");
    assertThat(draining.state()).isEqualTo(LeaseStatus.State.DRAINING);
    assertThat(draining.acquirableAt()).isEqualTo(longer);
  }

  @Test
  void aRenewalPastTheLongestLeaseIsRefusedAndChangesNothing() {
    Lease lease = oneShot(Duration.ofSeconds(60));
    Instant expiry = lease.expiresAt();
    assertThatThrownBy(() -> lease.renew(LeaseStore.MAX_TTL.plusNanos(1000)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("one-shot ttl must be between");
    assertThatThrownBy(() -> lease.renew(Duration.ofDays(3650)))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(lease.expiresAt()).isEqualTo(expiry);
    assertThat(lease.ttl()).isEqualTo(Duration.ofSeconds(60));
    assertThat(store.status(key, "app").owner().orElseThrow().expiresAt()).isEqualTo(expiry);
    assertThat(lease.renew(LeaseStore.MAX_TTL).renewed())
        .isTrue(); // the bound itself is a valid length
  }

  @Test
  void aHoldAlreadyPastIsAPlainRelease() {
    Lease lease = oneShot(Duration.ofSeconds(60));
    lease.releaseHolding(lease.acquiredAt().minusSeconds(60));
    assertThat(store.status(key, "app").state()).isEqualTo(LeaseStatus.State.FREE);
    assertThat(oneShot(Duration.ofSeconds(5)).fence()).isGreaterThan(lease.fence());
  }
}
