package io.leasehold.micrometer;

import io.leasehold.fencing.GuardListener;
import io.leasehold.lease.LeaseLoss;
import io.leasehold.lease.LeaseStore;
import io.leasehold.lease.LeaseStoreListener;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Micrometer meters for one {@link LeaseStore}, and for guards, without Spring:
 *
 * <pre>{@code
 * AutoCloseable metrics = LeaseholdMetrics.bind(store, registry);
 * FencedFileStore files = FencedFileStore.builder(root)
 *     .verifier(verifier)
 *     .listener(LeaseholdMetrics.guardListener(registry))
 *     .open();
 * }</pre>
 *
 * <table>
 *   <caption>Meters (every one tagged {@code table}, the store's lease table)</caption>
 *   <tr><th>name</th><th>type</th><th>tags</th><th>what it counts</th></tr>
 *   <tr><td>{@code leasehold.acquire}</td><td>timer</td><td>{@code outcome}: acquired, busy,
 *       too_late, error</td><td>acquire attempts and their latency</td></tr>
 *   <tr><td>{@code leasehold.renewal}</td><td>timer</td><td></td><td>the keeper's renewal rounds
 *       (one statement per 10,000 kept leases)</td></tr>
 *   <tr><td>{@code leasehold.renewal.failures}</td><td>counter</td><td></td><td>rounds that failed
 *       as a whole (their leases are lost)</td></tr>
 *   <tr><td>{@code leasehold.leases.kept}</td><td>gauge</td><td></td><td>leases the keeper
 *       renews now</td></tr>
 *   <tr><td>{@code leasehold.leases.lost}</td><td>counter</td><td>{@code reason}: the {@link
 *       LeaseLoss.Reason}, lower case</td><td>leases this store handed out that were lost</td></tr>
 *   <tr><td>{@code leasehold.keeper.lag}</td><td>gauge, seconds</td><td></td><td>time since the
 *       last successful renewal round (NaN before the first)</td></tr>
 * </table>
 *
 * <p>The guard meters are listed at {@link #guardListener}. Tags are low-cardinality on purpose:
 * never a session id, an account or a run id. What each meter means for operations, and the alerts
 * worth setting, is in docs/operations.md.
 */
public final class LeaseholdMetrics {
  private LeaseholdMetrics() {}

  /**
   * Registers the store's meters and starts counting.
   *
   * @param store the store to measure
   * @param registry where the meters go
   * @return closing it stops counting and removes the meters from the registry
   * @throws IllegalArgumentException if an argument is null
   */
  public static AutoCloseable bind(LeaseStore store, MeterRegistry registry) {
    if (store == null || registry == null) {
      throw new IllegalArgumentException("store and registry must not be null");
    }
    Tags tags = Tags.of("table", store.schema().table());
    List<Meter> meters = new ArrayList<>();
    Map<LeaseStoreListener.AcquireOutcome, Timer> acquire =
        perValue(
            LeaseStoreListener.AcquireOutcome.class,
            o ->
                Timer.builder("leasehold.acquire")
                    .description("acquire attempts and their latency, by outcome")
                    .tags(tags.and("outcome", o.name().toLowerCase(Locale.ROOT)))
                    .register(registry),
            meters);
    Map<LeaseLoss.Reason, Counter> lost =
        perValue(
            LeaseLoss.Reason.class,
            r ->
                Counter.builder("leasehold.leases.lost")
                    .description("leases this store handed out that were lost, by reason")
                    .tags(tags.and("reason", r.name().toLowerCase(Locale.ROOT)))
                    .register(registry),
            meters);
    Timer renewal =
        Timer.builder("leasehold.renewal")
            .description("the keeper's renewal rounds")
            .tags(tags)
            .register(registry);
    Counter renewalFailures =
        Counter.builder("leasehold.renewal.failures")
            .description("renewal rounds that failed as a whole")
            .tags(tags)
            .register(registry);
    meters.add(renewal);
    meters.add(renewalFailures);
    meters.add(
        Gauge.builder("leasehold.leases.kept", store, LeaseStore::keptLeaseCount)
            .description("leases the keeper renews now")
            .tags(tags)
            .register(registry));
    meters.add(
        Gauge.builder(
                "leasehold.keeper.lag",
                store,
                s -> s.keeperLag().map(LeaseholdMetrics::seconds).orElse(Double.NaN))
            .description("seconds since the keeper's last successful renewal round")
            .baseUnit("seconds")
            .tags(tags)
            .register(registry));

    AutoCloseable listening =
        store.addListener(
            new LeaseStoreListener() {
              @Override
              public void acquireEnded(AcquireOutcome outcome, Duration latency) {
                acquire.get(outcome).record(latency);
              }

              @Override
              public void renewalRound(int leases, int lostLeases, Duration latency) {
                renewal.record(latency);
              }

              @Override
              public void renewalFailed(int leases, Duration latency, Throwable error) {
                renewal.record(latency);
                renewalFailures.increment();
              }

              @Override
              public void leaseLost(LeaseLoss.Reason reason) {
                lost.get(reason).increment();
              }
            });
    return () -> {
      listening.close();
      meters.forEach(registry::remove);
    };
  }

  /**
   * A listener for guards (give it to a guard builder's {@code listener(...)}) that counts their
   * decisions:
   *
   * <table>
   *   <caption>Guard meters</caption>
   *   <tr><th>name</th><th>type</th><th>tags</th><th>what it counts</th></tr>
   *   <tr><td>{@code leasehold.guard.admissions}</td><td>counter</td><td>{@code resource}: memory,
   *       file, tool, jdbc</td><td>writes a guard admitted</td></tr>
   *   <tr><td>{@code leasehold.guard.rejections}</td><td>counter</td><td>{@code resource}, and
   *       {@code reason}: stale, unverified, lease_lost, duplicate, fail_closed</td><td>writes a
   *       guard refused</td></tr>
   * </table>
   *
   * <p>One listener can serve every guard of an application; the meters stay in the registry.
   *
   * @param registry where the meters go
   * @return the listener
   * @throws IllegalArgumentException if the registry is null
   */
  public static GuardListener guardListener(MeterRegistry registry) {
    if (registry == null) {
      throw new IllegalArgumentException("registry must not be null");
    }
    Map<String, Counter> counters = new ConcurrentHashMap<>();
    return (resource, decision) ->
        counters
            .computeIfAbsent(
                resource + "/" + decision, k -> guardCounter(registry, resource, decision))
            .increment();
  }

  private static Counter guardCounter(
      MeterRegistry registry, String resource, GuardListener.Decision decision) {
    if (decision == GuardListener.Decision.ADMITTED) {
      return Counter.builder("leasehold.guard.admissions")
          .description("writes a guard admitted")
          .tag("resource", resource)
          .register(registry);
    }
    return Counter.builder("leasehold.guard.rejections")
        .description("writes a guard refused, by reason")
        .tags("resource", resource, "reason", decision.name().toLowerCase(Locale.ROOT))
        .register(registry);
  }

  /**
   * One meter for each value of an enum, each also added to {@code meters} (to remove on close).
   */
  private static <E extends Enum<E>, M extends Meter> Map<E, M> perValue(
      Class<E> type, java.util.function.Function<E, M> register, List<Meter> meters) {
    Map<E, M> byValue = new EnumMap<>(type);
    for (E value : type.getEnumConstants()) {
      M meter = register.apply(value);
      byValue.put(value, meter);
      meters.add(meter);
    }
    return byValue;
  }

  private static double seconds(Duration d) {
    return d.toNanos() / 1e9;
  }
}
