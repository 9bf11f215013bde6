package io.leasehold.lease;

import java.util.Optional;

/**
 * The body of {@link LeaseStore#runExclusive}: keeps an acquired lease alive while the work runs on
 * the calling thread, interrupts that thread if the lease is lost, and releases it at the end.
 */
final class ExclusiveRun {
  private final Lease lease;
  private final Thread worker = Thread.currentThread();

  /** Guards the two flags: a loss listener and the worker's exit must not interleave. */
  private final Object interruptLock = new Object();

  private boolean workRunning = true;
  private boolean interruptedByLoss;

  private ExclusiveRun(Lease lease) {
    this.lease = lease;
  }

  /** Runs the work under the acquired lease; see {@link LeaseStore#runExclusive}. */
  static <T> RunOutcome<T> run(Lease lease, LeaseWork<T> work) {
    return new ExclusiveRun(lease).run(work);
  }

  private void onLost(LeaseLoss loss) {
    synchronized (interruptLock) {
      if (workRunning) {
        interruptedByLoss = true;
        worker.interrupt();
      }
    }
  }

  private <T> RunOutcome<T> run(LeaseWork<T> work) {
    Runnable unhook = lease.onLost(this::onLost);
    try {
      lease.keepAlive();
      T value;
      try {
        value = work.run(lease);
      } catch (Exception e) {
        Optional<LeaseLoss> loss = lease.loss();
        if (loss.isPresent()) {
          return new RunOutcome.Lost<>(loss.get(), Optional.of(e));
        }
        if (e instanceof RuntimeException re) {
          throw re;
        }
        throw new LeaseWorkException(e);
      }
      Optional<LeaseLoss> loss = lease.loss();
      if (loss.isPresent()) {
        return new RunOutcome.Lost<>(loss.get(), Optional.empty());
      }
      return new RunOutcome.Completed<>(value, lease.identity());
    } finally {
      unhook.run();
      synchronized (interruptLock) {
        workRunning = false;
        if (interruptedByLoss) {
          Thread.interrupted(); // the interrupt this run caused
        }
      }
      try {
        lease.release();
      } catch (LeaseStoreException e) {
        StoreLog.warn("release after exclusive run failed; it will expire", e);
      }
    }
  }
}
