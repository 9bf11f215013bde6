package io.leasehold.shedlock;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.fencing.LeaseKey;
import io.leasehold.lease.AccessPolicy;
import io.leasehold.lease.LeaseSchema;
import io.leasehold.lease.LeaseStatus;
import io.leasehold.lease.LeaseStore;
import io.leasehold.testing.TestDatabaseExtension;
import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import net.javacrumbs.shedlock.test.support.AbstractExtensibleLockProviderIntegrationTest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * ShedLock's own provider suite, unchanged: {@code AbstractExtensibleLockProviderIntegrationTest}
 * (which holds {@code AbstractLockProviderIntegrationTest}'s tests too), 15 tests, on real
 * PostgreSQL. Locked means the key's status is not {@code FREE}: held, or released with its {@code
 * lockAtLeastFor} still ahead.
 */
class ShedLockProviderSuiteTest extends AbstractExtensibleLockProviderIntegrationTest {
  @RegisterExtension
  static final TestDatabaseExtension db =
      TestDatabaseExtension.withTemplate("shedlock", ds -> LeaseSchema.defaults().apply(ds));

  private static LeaseStore store;
  private static LeaseholdLockProvider provider;

  @BeforeAll
  static void open() {
    store = LeaseStore.builder(db.dataSource()).accessPolicy(AccessPolicy.allowAll()).build();
    provider = LeaseholdLockProvider.of(store, "scheduler");
  }

  @AfterAll
  static void close() {
    store.close();
  }

  @Override
  protected ExtensibleLockProvider getLockProvider() {
    return provider;
  }

  private static LeaseStatus.State state(String lockName) {
    return store.status(LeaseKey.of("scheduler", lockName), "scheduler").state();
  }

  @Override
  protected void assertUnlocked(String lockName) {
    assertThat(state(lockName)).as("lock %s", lockName).isEqualTo(LeaseStatus.State.FREE);
  }

  @Override
  protected void assertLocked(String lockName) {
    assertThat(state(lockName)).as("lock %s", lockName).isNotEqualTo(LeaseStatus.State.FREE);
  }
}
