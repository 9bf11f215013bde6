package io.leasehold.lease;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Renews leases in chunks, one {@link RenewStatement} per {@value ChunkedRenewal#CHUNK} leases, for
 * the {@link BackgroundRenewal} (every renew interval) and for {@link LeaseStore#renewAll} and
 * {@link Lease#renew()}: a lease is renewed only if its row still names its run and the access
 * policy still lets its caller renew; a lease not renewed is lost from then on.
 */
record ChunkedRenewal(RenewStatement statement, Ticker ticker, AccessPolicy accessPolicy) {
  /** Leases renewed per statement; more are renewed in several statements. */
  static final int CHUNK = 10_000;

  /**
   * Renews in chunks; with a helper and more than one chunk, the helper takes chunks from the same
   * queue as this thread, so two statements run at once (the database does the bulk of the work and
   * has more than one core). If the helper never gets a thread (a busy or one-thread scheduler),
   * this thread does every chunk itself: it waits only for a helper that started.
   */
  BatchRenewal renew(Collection<Lease> leases, boolean swallowFailures, Executor helper) {
    List<Lease> live = new ArrayList<>(leases.size());
    List<Lease> lostLeases = Collections.synchronizedList(new ArrayList<>());
    for (Lease l : leases) {
      l.checkDeadline();
      if (!l.isEnded()) {
        if (mayRenew(l)) {
          live.add(l);
        } else {
          lostLeases.add(l);
        }
      }
    }
    int chunks = (live.size() + CHUNK - 1) / CHUNK;
    AtomicInteger nextChunk = new AtomicInteger();
    AtomicInteger renewedCount = new AtomicInteger();
    AtomicReference<RuntimeException> failure = new AtomicReference<>();
    Runnable work =
        () -> {
          for (int c; (c = nextChunk.getAndIncrement()) < chunks; ) {
            List<Lease> chunk = live.subList(c * CHUNK, Math.min(live.size(), (c + 1) * CHUNK));
            try {
              RenewStatement.Renewals renewals = renewChunk(chunk);
              for (int i = 0; i < chunk.size(); i++) {
                if (renewals.expiries()[i] != null) {
                  renewedCount.incrementAndGet();
                } else {
                  lostLeases.add(chunk.get(i));
                }
              }
            } catch (RuntimeException e) {
              // renewChunk marked the chunk's leases lost (a database failure), or a bug did:
              // either way they count as lost, on whichever thread this ran.
              lostLeases.addAll(chunk);
              if (!swallowFailures || !(e instanceof LeaseStoreException)) {
                failure.compareAndSet(null, e);
                nextChunk.set(chunks); // start no further statement
              }
            }
          }
        };
    // Whoever claims the helper's turn first: the helper (it then runs and counts down), or this
    // thread once it ran out of chunks (the helper, if it starts later, does nothing).
    AtomicBoolean helperClaimed = new AtomicBoolean();
    CountDownLatch helperDone = new CountDownLatch(1);
    boolean helping = false;
    if (helper != null && chunks > 1) {
      try {
        helper.execute(
            () -> {
              if (helperClaimed.compareAndSet(false, true)) {
                try {
                  work.run();
                } finally {
                  helperDone.countDown();
                }
              }
            });
        helping = true;
      } catch (RejectedExecutionException e) {
        // The scheduler is shutting down: renew alone.
      }
    }
    work.run();
    if (helping && !helperClaimed.compareAndSet(false, true)) {
      awaitUninterruptibly(helperDone);
    }
    if (failure.get() != null) {
      throw failure.get();
    }
    return new BatchRenewal(renewedCount.get(), lostLeases);
  }

  /**
   * Asks the access policy whether the run's caller may still renew; a refusal or a policy that
   * throws ends the lease, which is then lost with {@link LeaseLoss.Reason#ACCESS_REVOKED}.
   */
  boolean mayRenew(Lease lease) {
    boolean permitted;
    RuntimeException failure = null;
    try {
      permitted = accessPolicy.permits(lease.caller(), lease.key(), AccessPolicy.Operation.RENEW);
    } catch (RuntimeException e) {
      permitted = false;
      failure = e;
    }
    if (!permitted) {
      lease.markLost(LeaseLoss.Reason.ACCESS_REVOKED, failure);
    }
    return permitted;
  }

  /** Waits for a helper that started; it stops after its current chunk, as the queue is empty. */
  private static void awaitUninterruptibly(CountDownLatch done) {
    boolean interrupted = false;
    while (true) {
      try {
        done.await();
        break;
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  /** One renewal statement; confirms renewed leases and marks the others lost. */
  RenewStatement.Renewals renewChunk(List<Lease> chunk) {
    long sentAt = ticker.read();
    RenewStatement.Renewals renewed;
    try {
      renewed = statement.renew(chunk);
    } catch (LeaseStoreException e) {
      for (Lease l : chunk) {
        l.markLost(LeaseLoss.Reason.RENEWAL_FAILED, e);
      }
      throw e;
    }
    for (int i = 0; i < chunk.size(); i++) {
      Lease l = chunk.get(i);
      if (renewed.expiries()[i] != null) {
        l.confirmRenewal(
            sentAt, renewed.expiries()[i], Duration.of(renewed.ttlMicros()[i], ChronoUnit.MICROS));
      } else {
        l.markLost(LeaseLoss.Reason.RENEWAL_REFUSED, null);
      }
    }
    return renewed;
  }
}
