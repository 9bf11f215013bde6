package io.leasehold.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.devdb.LocalPostgres;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.lease.AccessPolicy;
import io.leasehold.lease.AcquireResult;
import io.leasehold.lease.Lease;
import io.leasehold.lease.LeaseSchema;
import io.leasehold.lease.LeaseStatus;
import io.leasehold.lease.LeaseStore;
import io.leasehold.testing.RowLocks;
import io.leasehold.testing.TestDataSources;
import io.leasehold.testing.TestDatabaseExtension;
import java.security.Principal;
import java.sql.Connection;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** The health indicator and the actuator endpoints, on real PostgreSQL. */
class LeaseholdActuatorTest {
  @RegisterExtension
  static final TestDatabaseExtension db =
      TestDatabaseExtension.withTemplate("lease", ds -> LeaseSchema.defaults().apply(ds));

  /** Accounts are their own callers; "ops" reads everything and may force releases. */
  static final AccessPolicy POLICY =
      new AccessPolicy() {
        @Override
        public boolean permits(String caller, LeaseKey key) {
          return caller.equals("ops") || caller.equals(key.accountId());
        }

        @Override
        public boolean permits(String caller, LeaseKey key, Operation operation) {
          return operation.administrative() ? caller.equals("ops") : permits(caller, key);
        }
      };

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(
                  LeaseholdAutoConfiguration.class, LeaseholdActuatorAutoConfiguration.class))
          .withBean(DataSource.class, () -> TestDataSources.unclosable(db.dataSource()))
          .withBean(AccessPolicy.class, () -> POLICY)
          .withPropertyValues("management.endpoints.web.exposure.include=leasehold,leaseholdadmin");

  private static SecurityContext as(String name) {
    return new SecurityContext() {
      @Override
      public Principal getPrincipal() {
        return name == null ? null : () -> name;
      }

      @Override
      public boolean isUserInRole(String role) {
        return false;
      }
    };
  }

  @Test
  void healthGoesDownWhenTheDatabaseStops() throws Exception {
    try (LocalPostgres server = LocalPostgres.builder().start()) { // durable: fsync on
      LeaseSchema.defaults().apply(server.dataSource());
      runner
          .withPropertyValues(
              "leasehold.datasource.url=" + server.jdbcUrl(),
              "leasehold.datasource.username=" + server.user(),
              "leasehold.datasource.password=" + server.password(),
              "leasehold.datasource.maximum-pool-size=2",
              "leasehold.datasource.connection-timeout=1s")
          .run(
              context -> {
                LeaseholdHealthIndicator health = context.getBean(LeaseholdHealthIndicator.class);
                Health up = health.health();
                assertThat(up.getStatus()).isEqualTo(Status.UP);
                assertThat(up.getDetails()).containsKeys("databaseTime", "keptLeases");
                // A lone durable server: nothing to lose in a failover.
                assertThat(up.getDetails()).containsEntry("failoverSafe", true);

                server.close();
                Health down = health.health();
                assertThat(down.getStatus()).isEqualTo(Status.DOWN);
                assertThat(down.getDetails()).containsKey("error");
              });
    }
  }

  @Test
  void healthGoesDownWhileTheKeeperCannotRenew() throws Exception {
    LeaseKey key = LeaseKey.of("acct", "stuck-renewal");
    runner
        .withPropertyValues(
            "leasehold.ttl=20s",
            "leasehold.renew-interval=200ms",
            "leasehold.lock-timeout=4s",
            "leasehold.statement-timeout=4s",
            "leasehold.health.max-keeper-lag=600ms")
        .run(
            context -> {
              LeaseStore store = context.getBean(LeaseStore.class);
              LeaseholdHealthIndicator health = context.getBean(LeaseholdHealthIndicator.class);
              Lease lease =
                  ((AcquireResult.Acquired) store.tryAcquire(key, "acct")).lease().keepAlive();
              awaitStatus(health, Status.UP);
              // Another transaction holds the lease row: the keeper's renewal waits on its lock,
              // and
              // its lag grows past the limit while the lease is still kept.
              try (Connection blocker =
                  RowLocks.hold(
                      db.database().newConnection(),
                      "SELECT 1 FROM leasehold_lease WHERE session_id = ? FOR UPDATE",
                      key.sessionId())) {
                Health down = awaitStatus(health, Status.DOWN);
                assertThat(down.getDetails()).containsKey("reason");
                assertThat((String) down.getDetails().get("reason")).contains("keeper");
                blocker.rollback();
              }
              awaitStatus(health, Status.UP);
              assertThat(lease.isLost()).isFalse();
            });
  }

  private static Health awaitStatus(LeaseholdHealthIndicator health, Status wanted)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (true) {
      Health h = health.health();
      if (h.getStatus().equals(wanted)) {
        return h;
      }
      assertThat(System.nanoTime())
          .as("health stayed %s: %s", h.getStatus(), h.getDetails())
          .isLessThan(deadline);
      Thread.sleep(20);
    }
  }

  @Test
  void theEndpointListsHeldLeasesAsThePolicyLetsTheCallerSee() {
    runner.run(
        context -> {
          LeaseStore store = context.getBean(LeaseStore.class);
          Lease mine =
              ((AcquireResult.Acquired) store.tryAcquire(LeaseKey.of("alice", "chat"), "alice"))
                  .lease();
          store.tryAcquire(LeaseKey.of("bob", "chat"), "bob");
          LeaseholdEndpoint endpoint = context.getBean(LeaseholdEndpoint.class);

          List<LeaseholdEndpoint.HeldLease> forAlice = endpoint.leases(as("alice")).leases();
          assertThat(forAlice)
              .singleElement()
              .satisfies(
                  l -> {
                    assertThat(l.account()).isEqualTo("alice");
                    assertThat(l.fence()).isEqualTo(mine.fence());
                    assertThat(l.expiresInMs()).isPositive();
                  });
          assertThat(endpoint.leases(as("ops")).leases())
              .extracting(LeaseholdEndpoint.HeldLease::account)
              .contains("alice", "bob");
          // Without a principal the caller is "actuator", which this policy lets see nothing.
          assertThat(endpoint.leases(as(null)).leases()).isEmpty();
          assertThat(context).doesNotHaveBean(LeaseholdAdminEndpoint.class);
        });
  }

  @Test
  void forceReleaseIsOffByDefaultAndWhenOnGoesThroughThePolicyAndTheAudit() {
    runner
        .withPropertyValues("leasehold.admin.force-release-enabled=true")
        .run(
            context -> {
              LeaseStore store = context.getBean(LeaseStore.class);
              LeaseKey key = LeaseKey.of("carol", "stuck");
              store.tryAcquire(key, "carol");
              LeaseholdAdminEndpoint admin = context.getBean(LeaseholdAdminEndpoint.class);

              assertThat(admin.release("carol", "stuck", "stuck run", as(null)).outcome())
                  .isEqualTo("denied");
              assertThat(admin.release("carol", "stuck", "stuck run", as("carol")).outcome())
                  .isEqualTo("denied");
              assertThat(store.status(key, "ops").state()).isEqualTo(LeaseStatus.State.HELD);
              assertThat(admin.release("carol", "stuck", " ", as("ops")).outcome())
                  .isEqualTo("invalid");

              assertThat(admin.release("carol", "stuck", "stuck run", as("ops")).outcome())
                  .isEqualTo("released");
              assertThat(store.status(key, "ops").state()).isEqualTo(LeaseStatus.State.FREE);
              assertThat(admin.release("carol", "stuck", "again", as("ops")).outcome())
                  .isEqualTo("not_held");
              try (Connection c = db.database().newConnection();
                  var rs =
                      c.createStatement()
                          .executeQuery(
                              "SELECT count(*) FROM leasehold_lease_audit WHERE operation = 'force_release'"
                                  + " AND session_id = 'stuck' AND caller = 'ops'")) {
                rs.next();
                assertThat(rs.getLong(1)).as("audited force releases").isEqualTo(2);
              }
            });
  }

  @Test
  void theHealthIndicatorCanBeSwitchedOff() {
    runner
        .withPropertyValues("management.health.leasehold.enabled=false")
        .run(context -> assertThat(context).doesNotHaveBean(LeaseholdHealthIndicator.class));
  }

  @Test
  void aKeeperLagLimitMustBePositive() {
    runner
        .withPropertyValues("leasehold.health.max-keeper-lag=0s")
        .run(StartupFailures.failsSaying("positive maxKeeperLag"));
  }
}
