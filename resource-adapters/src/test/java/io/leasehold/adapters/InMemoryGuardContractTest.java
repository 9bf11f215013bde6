package io.leasehold.adapters;

import io.leasehold.fencing.InMemoryFenceGuard;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.TokenVerifier;
import io.leasehold.testkit.GuardHarness;

/**
 * The guard contract for fencing-api's in-memory guard, with a map as its resource ({@link
 * GuardedMap}).
 */
class InMemoryGuardContractTest extends FencedResourceContract
    implements io.leasehold.testkit.ThrownErrorContract,
        io.leasehold.testkit.AccountIsolationContract {
  /** The smallest memory that still holds a few keys: the flood of 300 overflows it (issue 27). */
  @Override
  public GuardHarness isolationHarness() {
    InMemoryFenceGuard guard =
        InMemoryFenceGuard.builder().verifier(TokenVerifier.trustEveryWriter()).maxKeys(50).build();
    return new GuardedMap(guard);
  }

  @Override
  public GuardHarness throwingHarness() {
    return harness();
  }

  @Override
  public void writeThrowing(
      GuardHarness harness,
      LeaseKey key,
      io.leasehold.fencing.FencingToken token,
      Throwable thrown) {
    ((GuardedMap) harness)
        .guard()
        .runFenced(
            token,
            () -> {
              throw Sneaky.raise(thrown);
            });
  }

  @Override
  protected GuardHarness harness(TokenVerifier verifier) {
    return new GuardedMap(GuardedMap.contractGuard(verifier).build());
  }
}
