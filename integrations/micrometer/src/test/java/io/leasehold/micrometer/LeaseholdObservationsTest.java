package io.leasehold.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.leasehold.fencing.LeaseKey;
import io.leasehold.lease.AccessPolicy;
import io.leasehold.lease.AcquireResult;
import io.leasehold.lease.Lease;
import io.leasehold.lease.LeaseSchema;
import io.leasehold.lease.LeaseStore;
import io.leasehold.lease.LeaseStoreException;
import io.leasehold.testing.TestDataSources;
import io.leasehold.testing.TestDatabaseExtension;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Observations around acquire, renewal and release, from a real store on PostgreSQL. */
class LeaseholdObservationsTest {
  @RegisterExtension
  static final TestDatabaseExtension db =
      TestDatabaseExtension.withTemplate("lease", ds -> LeaseSchema.defaults().apply(ds));

  /** What a stopped observation said. */
  record Stopped(String name, String outcome, String table, String parent, Throwable error) {}

  /** Records every stopped observation, as a tracer's handler would see it. */
  static final class Recorder implements ObservationHandler<Observation.Context> {
    final List<Stopped> stopped = new CopyOnWriteArrayList<>();

    @Override
    public void onStop(Observation.Context c) {
      Observation parent =
          c.getParentObservation() == null ? null : (Observation) c.getParentObservation();
      stopped.add(
          new Stopped(
              c.getName(),
              value(c, "outcome"),
              value(c, "table"),
              parent == null ? null : parent.getContext().getName(),
              c.getError()));
    }

    private static String value(Observation.Context c, String key) {
      return c.getLowCardinalityKeyValue(key) == null
          ? null
          : c.getLowCardinalityKeyValue(key).getValue();
    }

    @Override
    public boolean supportsContext(Observation.Context context) {
      return true;
    }

    List<Stopped> named(String name) {
      return stopped.stream().filter(s -> s.name().equals(name)).toList();
    }
  }

  @Test
  void acquireRenewalAndReleaseAreObservedAsChildrenOfTheCallersObservation() throws Exception {
    Recorder recorder = new Recorder();
    ObservationRegistry registry = ObservationRegistry.create();
    registry.observationConfig().observationHandler(recorder);
    LeaseKey key = LeaseKey.of("acct", "traced");
    try (LeaseStore store = TestStores.renewing(db.dataSource(), Duration.ofMillis(100))) {
      AutoCloseable tracing = LeaseholdObservations.bind(store, registry);
      Observation request = Observation.start("request", registry);
      Lease lease;
      try (Observation.Scope scope = request.openScope()) {
        lease = ((AcquireResult.Acquired) store.tryAcquire(key, "acct")).lease();
        assertThat(store.tryAcquire(key, "acct")).isInstanceOf(AcquireResult.Busy.class);
      } finally {
        request.stop();
      }
      assertThat(recorder.named("leasehold.lease.acquire"))
          .extracting(Stopped::outcome, Stopped::table, Stopped::parent)
          .containsExactly(
              org.assertj.core.groups.Tuple.tuple("acquired", "leasehold_lease", "request"),
              org.assertj.core.groups.Tuple.tuple("busy", "leasehold_lease", "request"));

      lease.keepAlive();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
      while (recorder.named("leasehold.lease.renewal").isEmpty()) {
        assertThat(System.nanoTime()).as("no renewal round was observed").isLessThan(deadline);
        Thread.sleep(20);
      }
      assertThat(recorder.named("leasehold.lease.renewal").get(0).outcome()).isEqualTo("renewed");

      lease.release();
      assertThat(recorder.named("leasehold.lease.release"))
          .extracting(Stopped::outcome)
          .containsExactly("released");

      tracing.close();
      store.tryAcquire(LeaseKey.of("acct", "after-close"), "acct");
      assertThat(recorder.named("leasehold.lease.acquire")).hasSize(2);
    }
  }

  @Test
  void aFailedAcquireIsAnErrorObservation() {
    Recorder recorder = new Recorder();
    ObservationRegistry registry = ObservationRegistry.create();
    registry.observationConfig().observationHandler(recorder);
    DataSource down = TestDataSources.unreachable();
    try (LeaseStore store =
        LeaseStore.builder(down).accessPolicy(AccessPolicy.allowAll()).build()) {
      LeaseholdObservations.bind(store, registry);
      assertThatThrownBy(() -> store.tryAcquire(LeaseKey.of("acct", "down"), "acct"))
          .isInstanceOf(LeaseStoreException.class);
    }
    assertThat(recorder.named("leasehold.lease.acquire"))
        .extracting(Stopped::outcome)
        .containsExactly("error");
  }

  @Test
  void badArgumentsAreRefused() {
    try (LeaseStore store =
        LeaseStore.builder(db.dataSource()).accessPolicy(AccessPolicy.allowAll()).build()) {
      assertThatThrownBy(() -> LeaseholdObservations.bind(store, null))
          .isInstanceOf(IllegalArgumentException.class);
      assertThatThrownBy(() -> LeaseholdObservations.bind(null, ObservationRegistry.create()))
          .isInstanceOf(IllegalArgumentException.class);
    }
  }
}
