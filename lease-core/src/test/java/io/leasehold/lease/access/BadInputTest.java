package io.leasehold.lease.access;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.leasehold.fencing.LeaseKey;
import io.leasehold.lease.AccessPolicy;
import io.leasehold.lease.AcquireRequest;
import io.leasehold.lease.LeaseSchema;
import io.leasehold.lease.LeaseStore;
import io.leasehold.lease.LeaseStoreBuilder;
import io.leasehold.lease.support.LeaseDatabase;
import io.leasehold.testing.TestDatabaseExtension;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** CONTRACT C13: bad input gets a clear error and changes nothing. */
class BadInputTest {
  @RegisterExtension static final TestDatabaseExtension db = LeaseDatabase.extension();

  private LeaseStore store;
  private final LeaseKey key = LeaseKey.of("acct", "s");

  @BeforeEach
  void setUp() {
    store = LeaseStore.builder(db.dataSource()).accessPolicy(AccessPolicy.allowAll()).build();
  }

  @AfterEach
  void tearDown() throws Exception {
    store.close();
    assertThat(rowCount()).as("rows written by bad input").isZero();
  }

  private static int rowCount() throws Exception {
    try (Connection c = db.database().newConnection();
        Statement s = c.createStatement();
        ResultSet r = s.executeQuery("SELECT count(*) FROM leasehold_lease")) {
      r.next();
      return r.getInt(1);
    }
  }

  @Test
  void badKeysAndRequests() {
    assertThatThrownBy(() -> store.tryAcquire(null, "acct"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> store.tryAcquire((AcquireRequest) null))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> store.tryAcquire(key, null)).hasMessageContaining("caller");
    assertThatThrownBy(() -> store.tryAcquire(key, "  ")).hasMessageContaining("caller");
    assertThatThrownBy(() -> LeaseKey.of("", "s")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> LeaseKey.of("a", "s".repeat(129)))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> AcquireRequest.of(key, "acct").withHolder("h".repeat(201)))
        .hasMessageContaining("at most 200");
    assertThatThrownBy(() -> AcquireRequest.of(key, "acct").withHolder("tab\there"))
        .hasMessageContaining("control");
    assertThatThrownBy(() -> store.status(null, "app"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> store.release(null, "app"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> store.renewAll(null)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> store.runExclusive(AcquireRequest.of(key, "acct"), null))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void absurdTtls() {
    for (Duration ttl :
        List.of(
            Duration.ZERO, Duration.ofSeconds(-5), Duration.ofMillis(1), Duration.ofDays(400))) {
      assertThatThrownBy(() -> store.tryAcquire(AcquireRequest.of(key, "acct").withTtl(ttl)))
          .as("ttl %s", ttl)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("ttl");
    }
    // Shorter than one renew interval plus timeouts of this store: could never be kept.
    assertThatThrownBy(
            () -> store.tryAcquire(AcquireRequest.of(key, "acct").withTtl(Duration.ofSeconds(2))))
        .hasMessageContaining("renew interval");
    assertThatThrownBy(() -> AcquireRequest.of(key, "acct").withTtl(null))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new AcquireRequest(key, "acct", "", null))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(new AcquireRequest(key, "acct", "", Optional.empty()).ttl()).isEmpty();
  }

  /** A builder of a store on the test database, open to every caller. */
  private static LeaseStoreBuilder allowingAll() {
    return LeaseStore.builder(db.dataSource()).accessPolicy(AccessPolicy.allowAll());
  }

  @Test
  void badBuilderOptions() {
    assertThatThrownBy(() -> LeaseStore.builder(null)).isInstanceOf(IllegalArgumentException.class);
    LeaseStoreBuilder b = LeaseStore.builder(db.dataSource());
    assertThatThrownBy(b::build)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("accessPolicy");
    b.accessPolicy(AccessPolicy.allowAll());
    assertThatThrownBy(() -> b.ttl(null)).isInstanceOf(IllegalArgumentException.class);
    /** Options a store refuses at build, and the option its error names. */
    record Refused(UnaryOperator<LeaseStoreBuilder> options, String named) {}
    for (Refused refused :
        List.of(
            new Refused(o -> o.ttl(Duration.ofMillis(-1)), "ttl"),
            new Refused(
                o -> o.ttl(Duration.ofSeconds(10)).renewInterval(Duration.ofSeconds(9)),
                "renewInterval + statementTimeout + safetyMargin"),
            new Refused(
                o -> o.lockTimeout(Duration.ofSeconds(3)).statementTimeout(Duration.ofSeconds(2)),
                "lockTimeout"),
            new Refused(o -> o.takeoverDelay(Duration.ofSeconds(-1)), "takeoverDelay"))) {
      assertThatThrownBy(() -> refused.options().apply(allowingAll()).build())
          .hasMessageContaining(refused.named());
    }
    assertThatThrownBy(() -> LeaseStore.builder(db.dataSource()).defaultHolder("bad\nholder"))
        .hasMessageContaining("control");
  }

  @Test
  void closedStoreRefusesEverything() {
    store.close();
    assertThatThrownBy(() -> store.tryAcquire(key, "acct"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("closed");
    assertThatThrownBy(() -> store.status(key, "app")).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> store.renewAll(List.of())).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void badSchemaNames() {
    for (String bad :
        List.of("", "Lease", "lease;drop table x", "1lease", "a".repeat(41), "lease-x")) {
      assertThatThrownBy(() -> new LeaseSchema(bad, "seq"))
          .as("name %s", bad)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("identifier");
    }
    assertThatThrownBy(() -> new LeaseSchema("same", "same")).hasMessageContaining("differ");
    assertThatThrownBy(() -> new LeaseSchema(null, "seq"))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
