package io.leasehold.adapters;

import io.leasehold.testkit.GuardHarness;
import io.leasehold.fencing.AdminPolicy;
import io.leasehold.fencing.Fenced;
import io.leasehold.fencing.InMemoryFenceGuard;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.TokenVerifier;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The guard contract for fencing-api's in-memory guard, with a map as its resource. Its state
 * lives as long as the process, so "reopening" it hands back the same guard.
 */
class InMemoryGuardContractTest extends FencedResourceContract
    implements io.leasehold.testkit.ThrownErrorContract, io.leasehold.testkit.AccountIsolationContract {
  /** The smallest memory that still holds a few keys: the flood of 300 overflows it (issue 27). */
  @Override
  public GuardHarness isolationHarness() {
    InMemoryFenceGuard guard = InMemoryFenceGuard.builder().verifier(TokenVerifier.trustEveryWriter()).maxKeys(50).build();
    return new MapHarness(guard, new ConcurrentHashMap<>(), new ConcurrentHashMap<>());
  }

  @Override
  public GuardHarness throwingHarness() {
    return harness();
  }

  @Override
  public void writeThrowing(GuardHarness harness, LeaseKey key, io.leasehold.fencing.FencingToken token, Throwable thrown) {
    ((MapHarness) harness).guard().runFenced(token, () -> {
      throw Sneaky.raise(thrown);
    });
  }

  @Override
  protected GuardHarness harness(TokenVerifier verifier) {
    InMemoryFenceGuard guard =
        InMemoryFenceGuard.builder().verifier(verifier).adminPolicy(AdminPolicy.operators(Set.of("ops"))).build();
    return new MapHarness(guard, new ConcurrentHashMap<>(), new ConcurrentHashMap<>());
  }

  private record MapHarness(
      InMemoryFenceGuard guard, Map<LeaseKey, String> values, Map<LeaseKey, List<Long>> log)
      implements GuardHarness {

    @Override
    public void write(LeaseKey key, Fenced fenced, String value) {
      guard.runFenced(
          fenced,
          () -> {
            values.put(key, value);
            log.computeIfAbsent(key, k -> new ArrayList<>()).add(fenced.token().fence());
            return null;
          });
    }

    @Override
    public Optional<String> value(LeaseKey key) {
      return Optional.ofNullable(values.get(key));
    }

    @Override
    public GuardHarness reopen() {
      return this;
    }

    @Override
    public List<Long> admittedFences(LeaseKey key) {
      return List.copyOf(log.getOrDefault(key, List.of()));
    }
  }
}
