package io.leasehold.adapters.tool;

import io.leasehold.fencing.Fenced;
import io.leasehold.fencing.FencingToken;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A presenter whose first answer is the token the caller already has, and whose every later answer
 * comes from the run's lease: the pipeline verifies and scopes the token in hand, and the ask
 * before the journal admits still reaches the lease.
 */
final class PresentedFirst implements Fenced {
  private final FencingToken presented;
  private final Fenced run;
  private final AtomicBoolean handedOut = new AtomicBoolean();

  PresentedFirst(FencingToken presented, Fenced run) {
    this.presented = presented;
    this.run = run;
  }

  @Override
  public FencingToken token() {
    return handedOut.compareAndSet(false, true) ? presented : run.token();
  }
}
