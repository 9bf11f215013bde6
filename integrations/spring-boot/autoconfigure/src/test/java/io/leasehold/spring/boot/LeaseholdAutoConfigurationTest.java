package io.leasehold.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.adapters.file.FencedFileStore;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.GuardListener;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.StaleFenceException;
import io.leasehold.fencing.TokenVerifier;
import io.leasehold.lease.AccessPolicy;
import io.leasehold.lease.AcquireResult;
import io.leasehold.lease.Lease;
import io.leasehold.lease.LeaseSchema;
import io.leasehold.lease.LeaseStatus;
import io.leasehold.lease.LeaseStore;
import io.leasehold.testing.TestDataSources;
import io.leasehold.testing.TestDatabaseExtension;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.UUID;
import javax.sql.DataSource;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** Every branch of the auto-configuration, on real PostgreSQL. */
class LeaseholdAutoConfigurationTest {
  /** Names of stopped observations. */
  static final class ObservationNames
      implements io.micrometer.observation.ObservationHandler<
          io.micrometer.observation.Observation.Context> {
    final java.util.List<String> stopped = new java.util.concurrent.CopyOnWriteArrayList<>();

    @Override
    public void onStop(io.micrometer.observation.Observation.Context context) {
      stopped.add(context.getName());
    }

    @Override
    public boolean supportsContext(io.micrometer.observation.Observation.Context context) {
      return true;
    }
  }

  @RegisterExtension
  static final TestDatabaseExtension db =
      TestDatabaseExtension.withTemplate("lease", ds -> LeaseSchema.defaults().apply(ds));

  @RegisterExtension static final TestDatabaseExtension empty = TestDatabaseExtension.empty();

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(
                  LeaseholdAutoConfiguration.class, LeaseholdActuatorAutoConfiguration.class));

  private ApplicationContextRunner withDatabase() {
    return runner.withBean(DataSource.class, () -> TestDataSources.unclosable(db.dataSource()));
  }

  private ApplicationContextRunner withDatabaseAndPolicy() {
    return withDatabase().withBean(AccessPolicy.class, AccessPolicy::allowAll);
  }

  @Test
  void aMissingAccessPolicyFailsStartUpSayingHowToSupplyOne() {
    withDatabase()
        .run(
            StartupFailures.failsSaying(
                "Leasehold needs an AccessPolicy bean", "AccessPolicy.allowAll()"));
  }

  @Test
  void aMissingDataSourceFailsStartUpSayingHowToSupplyOne() {
    runner
        .withBean(AccessPolicy.class, AccessPolicy::allowAll)
        .run(StartupFailures.failsSaying("leasehold.datasource.url"));
  }

  @Test
  void aDisabledStarterConfiguresNothing() {
    withDatabase()
        .withPropertyValues("leasehold.enabled=false")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(context).doesNotHaveBean(LeaseStore.class);
              assertThat(context).doesNotHaveBean(LeaseholdHealthIndicator.class);
              assertThat(context).doesNotHaveBean(LeaseholdEndpoint.class);
            });
  }

  @Test
  void theUsersOwnStoreIsKeptAndStillClosedAtShutdown() {
    LeaseStore own =
        LeaseStore.builder(db.dataSource()).accessPolicy(AccessPolicy.allowAll()).build();
    withDatabase()
        .withBean("myStore", LeaseStore.class, () -> own)
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(context).getBean(LeaseStore.class).isSameAs(own);
              assertThat(context).hasSingleBean(LeaseholdHealthIndicator.class);
            });
    assertThat(own.isClosed()).isTrue();
  }

  @Test
  void propertiesReachTheStoreAndTheSchemaCanBeApplied() {
    runner
        .withBean(DataSource.class, () -> TestDataSources.unclosable(empty.dataSource()))
        .withBean(AccessPolicy.class, AccessPolicy::allowAll)
        .withPropertyValues(
            "leasehold.ttl=12s", "leasehold.renew-interval=2s", "leasehold.schema.apply=true")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              LeaseStore store = context.getBean(LeaseStore.class);
              assertThat(store.ttl()).isEqualTo(Duration.ofSeconds(12));
              assertThat(store.renewInterval()).isEqualTo(Duration.ofSeconds(2));
              assertThat(store.tryAcquire(LeaseKey.of("acct", "applied"), "acct"))
                  .isInstanceOf(AcquireResult.Acquired.class);
            });
  }

  @Test
  void aBadPropertyCombinationFailsWithTheStoresMessage() {
    withDatabaseAndPolicy()
        .withPropertyValues("leasehold.ttl=1s", "leasehold.renew-interval=2s")
        .run(
            context -> {
              assertThat(context).hasFailed();
              assertThat(context.getStartupFailure())
                  .rootCause()
                  .isInstanceOf(IllegalArgumentException.class)
                  .hasMessageContaining("renewInterval");
            });
  }

  @Test
  void aDedicatedPoolIsLeaseholdsOwn() {
    runner
        .withBean(AccessPolicy.class, AccessPolicy::allowAll)
        .withPropertyValues(
            "leasehold.datasource.url=" + db.database().jdbcUrl(),
            "leasehold.datasource.username=" + db.database().server().user(),
            "leasehold.datasource.password=" + db.database().server().password(),
            "leasehold.datasource.maximum-pool-size=2")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(context.getBean(LeaseholdDataSource.class).isOwned()).isTrue();
              assertThat(context).doesNotHaveBean(DataSource.class);
              LeaseStore store = context.getBean(LeaseStore.class);
              assertThat(store.tryAcquire(LeaseKey.of("acct", "own-pool"), "acct"))
                  .isInstanceOf(AcquireResult.Acquired.class);
            });
  }

  @Test
  void closingTheContextReleasesHeldLeasesSoAnotherStoreTakesOverAtOnce() {
    LeaseKey key = LeaseKey.of("acct", "handed-over");
    Lease[] held = new Lease[1];
    withDatabaseAndPolicy()
        .withPropertyValues("leasehold.ttl=60s")
        .run(
            context -> {
              LeaseStore store = context.getBean(LeaseStore.class);
              held[0] =
                  ((AcquireResult.Acquired) store.tryAcquire(key, "acct")).lease().keepAlive();
            });
    try (LeaseStore other =
        LeaseStore.builder(db.dataSource()).accessPolicy(AccessPolicy.allowAll()).build()) {
      // Released, not expired: the 60 s lease is free at once, and a new run takes the key.
      LeaseStatus status = other.status(key, "acct");
      assertThat(status.state()).isEqualTo(LeaseStatus.State.FREE);
      assertThat(status.owner().orElseThrow().releasedAt()).isNotNull();
      AcquireResult next = other.tryAcquire(key, "acct");
      assertThat(next)
          .isInstanceOfSatisfying(
              AcquireResult.Acquired.class,
              a -> assertThat(a.lease().fence()).isGreaterThan(held[0].fence()));
    }
  }

  @Test
  void metersAndObservationsCountAcquiresAndGuardRejections(@TempDir Path root) {
    ObservationNames names = new ObservationNames();
    withDatabaseAndPolicy()
        .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
        .withBean(
            io.micrometer.observation.ObservationRegistry.class,
            () -> {
              io.micrometer.observation.ObservationRegistry r =
                  io.micrometer.observation.ObservationRegistry.create();
              r.observationConfig().observationHandler(names);
              return r;
            })
        .withPropertyValues(
            "leasehold.tokens.verification=trust-every-writer",
            "leasehold.guards.file-store-root=" + root)
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              MeterRegistry registry = context.getBean(MeterRegistry.class);
              LeaseStore store = context.getBean(LeaseStore.class);
              LeaseKey key = LeaseKey.of("acct", "metered");
              Lease lease = ((AcquireResult.Acquired) store.tryAcquire(key, "acct")).lease();
              assertThat(store.tryAcquire(key, "acct")).isInstanceOf(AcquireResult.Busy.class);
              assertThat(
                      registry.get("leasehold.acquire").tag("outcome", "acquired").timer().count())
                  .isEqualTo(1);
              assertThat(registry.get("leasehold.acquire").tag("outcome", "busy").timer().count())
                  .isEqualTo(1);
              assertThat(names.stopped)
                  .containsExactly("leasehold.lease.acquire", "leasehold.lease.acquire");

              FencedFileStore files = context.getBean(FencedFileStore.class);
              files.write(lease, "acct/metered/notes.txt", "new".getBytes(StandardCharsets.UTF_8));
              Assertions.assertThatThrownBy(
                      () ->
                          files.write(
                              new FencingToken(key, lease.fence() - 1, UUID.randomUUID()),
                              "acct/metered/notes.txt",
                              new byte[0]))
                  .isInstanceOf(StaleFenceException.class);
              assertThat(
                      registry
                          .get("leasehold.guard.admissions")
                          .tag("resource", "file")
                          .counter()
                          .count())
                  .isEqualTo(1);
              assertThat(
                      registry
                          .get("leasehold.guard.rejections")
                          .tags("resource", "file", "reason", "stale")
                          .counter()
                          .count())
                  .isEqualTo(1);
            });
  }

  @Test
  void aGuardWithoutVerificationFailsStartUpSayingHowToChoose(@TempDir Path root) {
    withDatabaseAndPolicy()
        .withPropertyValues("leasehold.guards.file-store-root=" + root)
        .run(StartupFailures.failsSaying("leasehold.tokens.verification"));
  }

  @Test
  void guardsAreBeansOnlyWhenConfigured() {
    withDatabaseAndPolicy()
        .withPropertyValues("leasehold.tokens.verification=lease-table")
        .run(
            context -> {
              assertThat(context).hasSingleBean(TokenVerifier.class);
              assertThat(context).doesNotHaveBean(FencedFileStore.class);
              assertThat(context)
                  .doesNotHaveBean(io.leasehold.adapters.jdbc.FencedJdbcWriter.class);
              assertThat(context)
                  .doesNotHaveBean(io.leasehold.adapters.tool.FencedToolExecutor.class);
              // No registry: guards report to nobody.
              assertThat(context.getBean(GuardListener.class)).isSameAs(GuardListener.NONE);
            });
    withDatabaseAndPolicy()
        .withPropertyValues(
            "leasehold.tokens.verification=trust-every-writer",
            "leasehold.schema.apply=true",
            "leasehold.guards.jdbc-writer=true",
            "leasehold.guards.tool-executor=true")
        .withBean(
            io.leasehold.adapters.tool.FencedTool.class,
            () -> io.leasehold.adapters.tool.FencedTool.of("echo", args -> args))
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(
                      context
                          .getBean(io.leasehold.adapters.tool.FencedToolExecutor.class)
                          .toolNames())
                  .containsExactly("echo");
              io.leasehold.adapters.jdbc.FencedJdbcWriter writer =
                  context.getBean(io.leasehold.adapters.jdbc.FencedJdbcWriter.class);
              LeaseKey key = LeaseKey.of("acct", "jdbc-bean");
              Integer written =
                  writer.write(new FencingToken(key, 5, UUID.randomUUID()), (c, t) -> 1);
              assertThat(written).isEqualTo(1);
              assertThat(writer.highWaterMark(key)).hasValue(5);
            });
  }

  @Test
  void anUnknownVerificationIsRefused() {
    withDatabaseAndPolicy()
        .withPropertyValues("leasehold.tokens.verification=sometimes")
        .run(StartupFailures.failsSaying("signed, lease-table or trust-every-writer"));
  }
}
