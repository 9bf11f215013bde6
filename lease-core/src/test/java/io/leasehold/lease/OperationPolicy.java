package io.leasehold.lease;

import io.leasehold.fencing.LeaseKey;
import java.util.function.Predicate;

/** A test's access policy that decides by operation alone, administrative ones included. */
final class OperationPolicy implements AccessPolicy {
  private final Predicate<Operation> decision;

  OperationPolicy(Predicate<Operation> decision) {
    this.decision = decision;
  }

  @Override
  public boolean permits(String caller, LeaseKey key) {
    return true;
  }

  @Override
  public boolean permits(String caller, LeaseKey key, Operation operation) {
    return decision.test(operation);
  }
}
