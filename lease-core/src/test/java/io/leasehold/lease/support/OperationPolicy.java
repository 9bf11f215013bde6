package io.leasehold.lease.support;

import io.leasehold.fencing.LeaseKey;
import io.leasehold.lease.AccessPolicy;
import java.util.function.Predicate;

/** A test's access policy that decides by operation alone, administrative ones included. */
public final class OperationPolicy implements AccessPolicy {
  private final Predicate<Operation> decision;

  public OperationPolicy(Predicate<Operation> decision) {
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
