package io.leasehold.micrometer;

import io.leasehold.lease.LeaseStore;
import io.leasehold.lease.LeaseStoreListener;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Locale;

/**
 * Micrometer Observations around a store's acquires, renewal rounds and releases, so that a tracer
 * shows them as spans (child spans of whatever observation is current on the calling thread) and an
 * observation handler can time them:
 *
 * <pre>{@code
 * AutoCloseable tracing = LeaseholdObservations.bind(store, observationRegistry);
 * }</pre>
 *
 * <table>
 *   <caption>Observations (low-cardinality keys only: never a session, an account or a run id)</caption>
 *   <tr><th>name</th><th>keys</th></tr>
 *   <tr><td>{@code leasehold.lease.acquire}</td><td>{@code table}, {@code outcome}: acquired, busy,
 *       too_late, error</td></tr>
 *   <tr><td>{@code leasehold.lease.renewal}</td><td>{@code table}, {@code outcome}: renewed,
 *       error (the round failed as a whole); {@code leases}, the number renewed, as a
 *       high-cardinality key</td></tr>
 *   <tr><td>{@code leasehold.lease.release}</td><td>{@code table}, {@code outcome}: released,
 *       not_held, error</td></tr>
 * </table>
 *
 * <p>The names differ from {@link LeaseholdMetrics}'s meters, so both can be bound to one
 * application whose observation registry also makes timers.
 */
public final class LeaseholdObservations {
  private LeaseholdObservations() {}

  /**
   * Starts observing the store.
   *
   * @param store the store
   * @param registry where observations go
   * @return closing it stops observing
   * @throws IllegalArgumentException if an argument is null
   */
  public static AutoCloseable bind(LeaseStore store, ObservationRegistry registry) {
    if (store == null || registry == null) {
      throw new IllegalArgumentException("store and registry must not be null");
    }
    String table = store.schema().table();
    // Per thread, the observations started and not yet ended: operations nest, never interleave.
    ThreadLocal<Deque<Observation>> open = ThreadLocal.withInitial(ArrayDeque::new);
    return store.addListener(
        new LeaseStoreListener() {
          @Override
          public void started(Operation operation) {
            String name = "leasehold.lease." + operation.name().toLowerCase(Locale.ROOT);
            Observation o =
                Observation.createNotStarted(name, registry)
                    .contextualName("leasehold " + operation.name().toLowerCase(Locale.ROOT))
                    .lowCardinalityKeyValue("table", table);
            open.get().push(o.start());
          }

          private void end(String outcome, Throwable error) {
            Deque<Observation> stack = open.get();
            Observation o = stack.poll();
            if (stack.isEmpty()) {
              open.remove();
            }
            if (o == null) {
              return; // bound while the operation was in flight: its start was not seen
            }
            o.lowCardinalityKeyValue("outcome", outcome);
            if (error != null) {
              o.error(error);
            }
            o.stop();
          }

          @Override
          public void acquireEnded(AcquireOutcome outcome, Duration latency) {
            end(outcome.name().toLowerCase(Locale.ROOT), null);
          }

          @Override
          public void releaseEnded(ReleaseOutcome outcome, Duration latency) {
            end(outcome.name().toLowerCase(Locale.ROOT), null);
          }

          @Override
          public void renewalRound(int leases, int lost, Duration latency) {
            Observation o = open.get().peek();
            if (o != null) {
              o.highCardinalityKeyValue("leases", Integer.toString(leases));
            }
            end("renewed", null);
          }

          @Override
          public void renewalFailed(int leases, Duration latency, Throwable error) {
            end("error", error);
          }
        });
  }
}
