package io.leasehold.lease;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/** A store's listeners, called in turn; one that throws is logged and does not stop the others. */
final class ListenerList implements LeaseStoreListener {
  private final List<LeaseStoreListener> listeners = new CopyOnWriteArrayList<>();

  AutoCloseable add(LeaseStoreListener listener) {
    listeners.add(listener);
    return () -> listeners.remove(listener);
  }

  private void each(Consumer<LeaseStoreListener> call) {
    for (LeaseStoreListener l : listeners) {
      try {
        call.accept(l);
      } catch (RuntimeException e) {
        StoreLog.warn("a lease store listener failed", e);
      }
    }
  }

  @Override
  public void started(Operation operation) {
    each(l -> l.started(operation));
  }

  @Override
  public void releaseEnded(ReleaseOutcome outcome, Duration latency) {
    each(l -> l.releaseEnded(outcome, latency));
  }

  @Override
  public void acquireEnded(AcquireOutcome outcome, Duration latency) {
    each(l -> l.acquireEnded(outcome, latency));
  }

  @Override
  public void renewalRound(int leases, int lost, Duration latency) {
    each(l -> l.renewalRound(leases, lost, latency));
  }

  @Override
  public void renewalFailed(int leases, Duration latency, Throwable error) {
    each(l -> l.renewalFailed(leases, latency, error));
  }

  @Override
  public void leaseLost(LeaseLoss.Reason reason) {
    each(l -> l.leaseLost(reason));
  }
}
