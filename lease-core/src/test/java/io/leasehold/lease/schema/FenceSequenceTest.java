package io.leasehold.lease.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.leasehold.fencing.LeaseKey;
import io.leasehold.lease.AccessPolicy;
import io.leasehold.lease.AcquireResult;
import io.leasehold.lease.Lease;
import io.leasehold.lease.LeaseSchema;
import io.leasehold.lease.LeaseStatus;
import io.leasehold.lease.LeaseStore;
import io.leasehold.lease.LeaseStoreException;
import io.leasehold.lease.support.LeaseDatabase;
import io.leasehold.testing.SingleServerOnly;
import io.leasehold.testing.TestDatabaseExtension;
import java.sql.Connection;
import java.sql.Statement;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * CONTRACT C3 across stores: every grant on a lease table draws from the one sequence bound to it.
 * In this order: the second test unbinds the sequence, and binds it again.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class FenceSequenceTest {
  @RegisterExtension static final TestDatabaseExtension db = LeaseDatabase.extension();

  private LeaseStore store(LeaseSchema schema) {
    return LeaseStore.builder(db.dataSource())
        .schema(schema)
        .accessPolicy(AccessPolicy.allowAll())
        .build();
  }

  private void sql(String statement) throws Exception {
    try (Connection c = db.database().newConnection();
        Statement s = c.createStatement()) {
      s.execute(statement);
    }
  }

  /**
   * Runs {@code ALTER SEQUENCE leasehold_fence_seq <change>} the way an operator can on both
   * servers. Citus refuses to alter a sequence its distributed table uses ("Altering a distributed
   * sequence is currently not supported") unless DDL propagation is off for the session; the change
   * then applies on the coordinator, where every fence is drawn. On one PostgreSQL that setting is
   * an unused placeholder.
   */
  private void alterFenceSequence(String change) throws Exception {
    sql("SET citus.enable_ddl_propagation = off; ALTER SEQUENCE leasehold_fence_seq " + change);
  }

  /**
   * An outside check had store A on the defaults and store B on the same table with another
   * sequence: after A granted a key fence 51, B granted it fence 1. B now refuses before it draws
   * any fence, naming both sequences and the configuration to use.
   */
  @Test
  @Order(1)
  void aStoreOnAnotherSequenceThanItsTablesRefusesToGrant() throws Exception {
    LeaseKey key = LeaseKey.of("acct", "two-sequences");
    sql("CREATE SEQUENCE other_seq AS bigint CACHE 1");
    try (LeaseStore a = store(LeaseSchema.defaults());
        LeaseStore b = store(new LeaseSchema("leasehold_lease", "other_seq"))) {
      Lease first = a.tryAcquire(key, "acct").acquiredLease().orElseThrow();
      long fenceOfA = first.fence();
      first.release();
      assertThatThrownBy(() -> b.tryAcquire(key, "acct"))
          .isInstanceOf(LeaseStoreException.class)
          .hasMessageContaining("draws its fences from the sequence public.leasehold_fence_seq")
          .hasMessageContaining("configured with the sequence other_seq")
          .hasMessageContaining("Configure this store with LeaseSchema.defaults()");
      // Its health probe says the same, and nothing was granted or drawn.
      assertThatThrownBy(b::databaseTime).hasMessageContaining("other_seq");
      LeaseStatus status = a.status(key, "acct");
      assertThat(status.state()).isEqualTo(LeaseStatus.State.FREE);
      assertThat(status.owner().orElseThrow().fence()).isEqualTo(fenceOfA);
      try (Connection c = db.database().newConnection();
          Statement s = c.createStatement();
          var rs = s.executeQuery("SELECT is_called FROM other_seq")) {
        rs.next();
        assertThat(rs.getBoolean(1)).as("other_seq never drawn").isFalse();
      }
      // A store on the sequence the table names goes on, with a higher fence.
      assertThat(a.tryAcquire(key, "acct").acquiredLease().orElseThrow().fence())
          .isGreaterThan(fenceOfA);
    }
  }

  /**
   * A table whose schema predates the binding tells no store where its fences come from: stores
   * refuse with the repair, and applying the schema again binds the sequence in place.
   */
  @Test
  @Order(2)
  @SingleServerOnly(
      "Citus refuses to unbind the fence sequence from its distributed table (ALTER SEQUENCE ..."
          + " OWNED BY NONE: cannot alter OWNED BY option of a sequence already owned by a"
          + " distributed table, whatever DDL propagation says), so the unbound table this case"
          + " repairs cannot exist there")
  void aTableWithoutItsBindingIsRefusedUntilTheSchemaIsAppliedAgain() throws Exception {
    LeaseKey key = LeaseKey.of("acct", "unbound");
    // The state of a database migrated before change set 7.
    sql("ALTER SEQUENCE leasehold_fence_seq OWNED BY NONE");
    sql("DELETE FROM leasehold_lease_changelog WHERE id = '7-fence-sequence-owned-by-table'");
    try (LeaseStore store = store(LeaseSchema.defaults())) {
      assertThatThrownBy(() -> store.tryAcquire(key, "acct"))
          .isInstanceOf(LeaseStoreException.class)
          .hasMessageContaining("has no fence sequence bound to its fence column")
          .hasMessageContaining("LeaseSchema.defaults().apply(dataSource)")
          .hasMessageContaining(
              "ALTER SEQUENCE leasehold_fence_seq OWNED BY leasehold_lease.fence");
      LeaseSchema.defaults().apply(db.dataSource());
      // The refusal is not remembered: the same store grants once the schema is repaired.
      assertThat(store.tryAcquire(key, "acct")).isInstanceOf(AcquireResult.Acquired.class);
    }
  }

  /**
   * A fence sequence that caches values hands each connection a block of its own, so a later
   * acquire on another connection can draw a lower fence (CONTRACT C3 requires CACHE 1). A store
   * refuses such a sequence with the repair, and grants again once it is repaired.
   */
  @Test
  @Order(3)
  void aFenceSequenceThatCachesValuesIsRefusedUntilItCachesOne() throws Exception {
    LeaseKey key = LeaseKey.of("acct", "cached");
    alterFenceSequence("CACHE 20");
    try (LeaseStore store = store(LeaseSchema.defaults())) {
      assertThatThrownBy(() -> store.tryAcquire(key, "acct"))
          .isInstanceOf(LeaseStoreException.class)
          .hasMessageContaining("caches 20 values per connection")
          .hasMessageContaining("ALTER SEQUENCE leasehold_fence_seq CACHE 1");
      alterFenceSequence("CACHE 1");
      assertThat(store.tryAcquire(key, "acct")).isInstanceOf(AcquireResult.Acquired.class);
    } finally {
      alterFenceSequence("CACHE 1");
    }
  }

  /**
   * An outside check restarted the sequence below a key's fence while stores ran: the key's next
   * run got fence 1, then 2, a fence an earlier run of the key already had, and nothing noticed. A
   * key's next fence is now above its row's own, whatever the sequence says.
   */
  @Test
  @Order(4)
  void aSequenceRestartedLowerNeverGivesAKeyAFenceItAlreadyHad() throws Exception {
    LeaseKey key = LeaseKey.of("acct", "restarted");
    try (LeaseStore store = store(LeaseSchema.defaults())) {
      long before = 0;
      for (int i = 0; i < 3; i++) {
        Lease lease = store.tryAcquire(key, "acct").acquiredLease().orElseThrow();
        before = lease.fence();
        lease.release();
      }
      alterFenceSequence("RESTART WITH 1");
      for (int i = 0; i < 3; i++) {
        Lease lease = store.tryAcquire(key, "acct").acquiredLease().orElseThrow();
        assertThat(lease.fence()).as("run %d after the restart", i).isGreaterThan(before);
        before = lease.fence();
        lease.release();
      }
    } finally {
      sql("SELECT setval('leasehold_fence_seq', (SELECT max(fence) FROM leasehold_lease))");
    }
  }

  /**
   * An outside check raised the sequence's cache while two stores ran, and they handed one key
   * fences 23, 4, 24, 5: the start-up check had passed, and the health probe only repeated it. Now
   * the probe checks every time and stops the store's grants, and a key's fences increase meanwhile
   * anyway.
   */
  @Test
  @Order(5)
  void aSequenceAlteredWhileStoresRunShowsInTheProbeAndNeverLowersAKeysFence() throws Exception {
    LeaseKey key = LeaseKey.of("acct", "cache-raised");
    try (LeaseStore a = store(LeaseSchema.defaults());
        LeaseStore b =
            LeaseStore.builder(db.database().newPool(2))
                .accessPolicy(AccessPolicy.allowAll())
                .build()) {
      a.tryAcquire(key, "acct").acquiredLease().orElseThrow().release();
      b.databaseTime();
      alterFenceSequence("CACHE 20");
      long highest = 0;
      for (int i = 0; i < 8; i++) {
        Lease lease = (i % 2 == 0 ? a : b).tryAcquire(key, "acct").acquiredLease().orElseThrow();
        assertThat(lease.fence()).as("grant %d", i).isGreaterThan(highest);
        highest = lease.fence();
        lease.release();
      }
      assertThatThrownBy(a::databaseTime)
          .isInstanceOf(LeaseStoreException.class)
          .hasMessageContaining("caches 20 values");
      assertThatThrownBy(() -> a.tryAcquire(key, "acct")).isInstanceOf(LeaseStoreException.class);
      alterFenceSequence("CACHE 1");
      assertThat(a.databaseTime()).isNotNull();
      assertThat(a.tryAcquire(key, "acct").acquiredLease().orElseThrow().fence())
          .isGreaterThan(highest);
    } finally {
      alterFenceSequence("CACHE 1");
    }
  }
}
