package io.leasehold.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * CONTRACT C19, the other half: one account's traffic never makes another account's live run be
 * refused. Before issue 27 an in-memory guard with room for 50 keys, flooded with 60 of one
 * account's own valid leases, raised a floor shared by every account and refused an honest run of
 * another. Implement it with a guard as small as it can be configured (its key bound, its cache),
 * so that {@link #floodKeys()} keys overflow whatever it remembers.
 */
public interface AccountIsolationContract {
  /**
   * A fresh guard on fresh storage that trusts every writer, configured with its smallest memory.
   *
   * @return the harness
   */
  GuardHarness isolationHarness();

  /**
   * How many keys of one account the flood uses: more than the guard remembers.
   *
   * @return the number, 300 by default
   */
  default int floodKeys() {
    return 300;
  }

  /** Bob's run writes, mallory floods the guard with her own valid keys, bob's run writes again. */
  @Test
  default void oneAccountsFloodNeverGetsAnotherAccountsLiveRunRefused() {
    GuardHarness h = isolationHarness();
    LeaseKey bob = LeaseKey.of("bob", "chat");
    FencingToken bobsRun = new FencingToken(bob, 3, UUID.randomUUID());
    h.write(bob, bobsRun, "first");
    for (int i = 0; i < floodKeys(); i++) {
      LeaseKey k = LeaseKey.of("mallory", "s-" + i);
      h.write(k, new FencingToken(k, 1_000 + i, UUID.randomUUID()), "flood");
    }
    h.write(bob, bobsRun, "second");
    assertThat(h.value(bob)).contains("second");
  }
}
