package io.leasehold.examples;

import io.leasehold.fencing.AdminPolicy;
import io.leasehold.fencing.Fenced;
import io.leasehold.fencing.InMemoryFenceGuard;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.TokenVerifier;
import io.leasehold.testkit.FenceGuardContract;
import io.leasehold.testkit.GuardHarness;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * docs/resource-owners.md's sample of the guard testkit: a resource owner's own guarded resource (a
 * notes board) run through the published contract suite.
 */
// region testkit
class NotesBoardContractTest extends FenceGuardContract {
  @Override
  protected GuardHarness harness(TokenVerifier verifier) {
    InMemoryFenceGuard guard =
        InMemoryFenceGuard.builder()
            .verifier(verifier)
            .adminPolicy(AdminPolicy.operators(Set.of("ops")))
            .build();
    return new Board(guard, new ConcurrentHashMap<>(), new ConcurrentHashMap<>());
  }

  /** The notes board as the suite sees it: one note per session, and the fences it admitted. */
  private record Board(
      InMemoryFenceGuard guard, Map<LeaseKey, String> notes, Map<LeaseKey, List<Long>> log)
      implements GuardHarness {
    @Override
    public void write(LeaseKey key, Fenced writer, String value) {
      guard.runFenced(
          writer,
          () -> {
            notes.put(key, value);
            return log.computeIfAbsent(key, k -> new ArrayList<>()).add(writer.token().fence());
          });
    }

    @Override
    public Optional<String> value(LeaseKey key) {
      return Optional.ofNullable(notes.get(key));
    }

    @Override
    public GuardHarness reopen() {
      return this; // in memory: the "restarted" board is the same board
    }

    @Override
    public List<Long> admittedFences(LeaseKey key) {
      return List.copyOf(log.getOrDefault(key, List.of()));
    }
  }
}
// endregion
