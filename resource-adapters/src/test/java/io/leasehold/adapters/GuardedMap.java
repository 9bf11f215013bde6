package io.leasehold.adapters;

import io.leasehold.fencing.AdminPolicy;
import io.leasehold.fencing.Fenced;
import io.leasehold.fencing.InMemoryFenceGuard;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.MarkReset;
import io.leasehold.fencing.TokenVerifier;
import io.leasehold.testkit.GuardHarness;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A map written only through an in-memory guard: the resource the in-memory guard's contract tests
 * guard. Its state lives as long as the process, so "reopening" it hands back the same map. A
 * subclass may do something before each write and reset ({@link #beforeOperation()}).
 */
class GuardedMap implements GuardHarness {
  private final InMemoryFenceGuard guard;
  private final Map<LeaseKey, String> values = new ConcurrentHashMap<>();
  private final Map<LeaseKey, List<Long>> log = new ConcurrentHashMap<>();

  GuardedMap(InMemoryFenceGuard guard) {
    this.guard = guard;
  }

  /**
   * The in-memory guard as the guard contract runs it: the verification under test, and the
   * contract's operator ({@code ops}) as the only one who may reset marks.
   */
  static InMemoryFenceGuard.Builder contractGuard(TokenVerifier verifier) {
    return InMemoryFenceGuard.builder()
        .verifier(verifier)
        .adminPolicy(AdminPolicy.operators(Set.of("ops")));
  }

  /** What runs before each of the contract's writes and resets; nothing here. */
  void beforeOperation() {}

  @Override
  public InMemoryFenceGuard guard() {
    return guard;
  }

  @Override
  public void write(LeaseKey key, Fenced fenced, String value) {
    beforeOperation();
    guard.runFenced(
        fenced,
        () -> {
          values.put(key, value);
          log.computeIfAbsent(key, k -> new ArrayList<>()).add(fenced.token().fence());
          return null;
        });
  }

  @Override
  public MarkReset resetMark(LeaseKey key, long newMark, String operator, String reason) {
    beforeOperation();
    return GuardHarness.super.resetMark(key, newMark, operator, reason);
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
