package io.leasehold.lease.acquire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.leasehold.fencing.LeaseKey;
import io.leasehold.lease.AccessPolicy;
import io.leasehold.lease.AcquireRequest;
import io.leasehold.lease.LeaseStore;
import io.leasehold.lease.support.LeaseDatabase;
import io.leasehold.testing.TestDatabaseExtension;
import java.time.Duration;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 31, item 7: a per-request TTL too short for the store's renewal (renew interval + statement
 * timeout + safety margin) must be refused at the request, by every way of acquiring, with the
 * floor named, and nothing acquired.
 */
class ShortRequestTtlTest {
  @RegisterExtension static final TestDatabaseExtension db = LeaseDatabase.extension();

  @Test
  void everyWayOfAcquiringRefusesATtlShorterThanTheStoreNeeds() throws Exception {
    try (LeaseStore store =
        LeaseDatabase.store(db, AccessPolicy.allowAll(), Duration.ofSeconds(30))) {
      LeaseKey key = LeaseKey.of("acct", "short-ttl");
      AcquireRequest tooShort = AcquireRequest.of(key, "acct").withTtl(Duration.ofSeconds(1));
      ThrowingCallable[] ways = {
        () -> store.tryAcquire(tooShort),
        () -> store.acquire(tooShort, Duration.ofMillis(10)),
        () -> store.acquireAsync(tooShort, Duration.ofMillis(10), Runnable::run),
        () -> store.runExclusive(tooShort, lease -> "ran"),
      };
      for (ThrowingCallable way : ways) {
        assertThatThrownBy(way)
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining(
                "ttl PT1S is shorter than renew interval + statement timeout + safety margin")
            .hasMessageContaining("a renewal could not complete before the local deadline");
      }
      assertThat(store.status(key, "acct").owner()).isEmpty();
    }
  }
}
