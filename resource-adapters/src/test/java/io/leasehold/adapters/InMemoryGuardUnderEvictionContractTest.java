package io.leasehold.adapters;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.InMemoryFenceGuard;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.TokenVerifier;
import io.leasehold.testkit.GuardHarness;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The guard contract for the in-memory guard while it is full and forgetting keys (issue 46, item
 * 4). Before each of the contract's writes, admissions and resets, other accounts fill the guard to
 * its bound and past it: a crowd account adds keys of its own until the guard is full and one more
 * (room made from its own keys), then a passer-by arrives with the first key of a new account (room
 * made from the account that holds the most, the crowd). So every operation of the contract runs in
 * a guard that has just made room, and the contract's outcomes must be the same as in an empty
 * guard, with never more keys remembered than the bound.
 *
 * <p>The crowd's and passers-by's tokens are admitted by the guard's verification like any other
 * (their accounts are trusted by the wrapper below, so a contract that requires signatures still
 * sees them admitted); the contract's own tokens go through the verification under test.
 */
class InMemoryGuardUnderEvictionContractTest extends FencedResourceContract {
  private static final int BOUND = 1_000;

  /** The most threads of the contract admitting at once (its contention test runs six). */
  private static final int THREADS = 6;

  @Override
  protected GuardHarness harness(TokenVerifier verifier) {
    TokenVerifier crowdTrusted =
        token -> {
          if (!token.key().accountId().startsWith("crowd:")) {
            verifier.verify(token);
          }
        };
    return new CrowdedMap(GuardedMap.contractGuard(crowdTrusted).maxKeys(BOUND).build());
  }

  /** A map guarded by a guard that other accounts keep full. */
  private static final class CrowdedMap extends GuardedMap {
    private final AtomicLong crowdKeys = new AtomicLong();

    CrowdedMap(InMemoryFenceGuard guard) {
      super(guard);
    }

    /** Fills the guard and makes it forget: the crowd's own keys, then the largest account's. */
    @Override
    void beforeOperation() {
      while (guard().rememberedKeys() < BOUND) {
        admitCrowd("crowd:big", "s" + crowdKeys.incrementAndGet());
      }
      admitCrowd("crowd:big", "s" + crowdKeys.incrementAndGet());
      while (guard().rememberedKeys() < BOUND) {
        admitCrowd("crowd:big", "s" + crowdKeys.incrementAndGet());
      }
      admitCrowd("crowd:passer-" + crowdKeys.incrementAndGet(), "s");
      // Threads making room at once may each pass the bound by one key, for a moment.
      assertThat(guard().rememberedKeys())
          .as("keys remembered")
          .isLessThanOrEqualTo(BOUND + THREADS);
    }

    private void admitCrowd(String account, String session) {
      // Fences of the crowd stay below the contract's: its floor must never matter to them.
      guard().admit(new FencingToken(LeaseKey.of(account, session), 1, UUID.randomUUID()));
    }
  }
}
