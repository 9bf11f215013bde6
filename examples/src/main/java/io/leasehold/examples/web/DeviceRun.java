package io.leasehold.examples.web;

import io.leasehold.fencing.Fenced;
import io.leasehold.fencing.FencingToken;
import io.leasehold.lease.Lease;
import java.util.concurrent.CountDownLatch;
import java.util.function.Consumer;

/**
 * One device's server-side agent job under its lease: a write through each adapter every step,
 * until it is done, frozen, or its lease is lost. Frozen, it holds the token its next requests
 * carry; woken, it delivers them: a resource the newer run has already written to refuses them, one
 * it has not written to yet has not seen the newer fence and admits them (CONTRACT C9 orders the
 * writes each resource admits, not the writes it has yet to see).
 */
final class DeviceRun implements Runnable {
  /** What a device's page shows about its own run. */
  enum State {
    RUNNING,
    FROZEN,
    LOST,
    DONE
  }

  /**
   * What the page shows, set as one value so that a reader never pairs a state with another state's
   * message.
   *
   * @param state where the run is
   * @param message what happened last, in words
   */
  record Status(State state, String message) {}

  private final String device;
  private final Lease lease;
  private final WebResources resources;
  private final Consumer<DeviceRun> changed;
  private final CountDownLatch woken = new CountDownLatch(1);
  private volatile Status status = new Status(State.RUNNING, "");
  private volatile boolean frozen;

  DeviceRun(String device, Lease lease, WebResources resources, Consumer<DeviceRun> changed) {
    this.device = device;
    this.lease = lease;
    this.resources = resources;
    this.changed = changed;
    lease.onLost(
        loss -> {
          status =
              new Status(
                  State.LOST,
                  "lease lost: " + loss.reason() + "; this device is no longer the runner");
          changed.accept(this);
        });
  }

  String device() {
    return device;
  }

  FencingToken token() {
    return lease.identity();
  }

  Status status() {
    return status;
  }

  void freeze() {
    frozen = true;
    if (status.state() == State.RUNNING) {
      status = new Status(State.FROZEN, "frozen (a long GC pause, cut off from the database)");
    }
    changed.accept(this);
  }

  void wake() {
    frozen = false;
    woken.countDown();
    changed.accept(this);
  }

  boolean frozen() {
    return frozen;
  }

  @Override
  public void run() {
    FencingToken inFlight = lease.identity();
    for (int step = 1; step <= 40; step++) {
      if (frozen) {
        awaitWake();
        // Requests it had built before the freeze go out now with the old token.
        for (String adapter : WebResources.ADAPTERS) {
          write(adapter, inFlight, "late step " + step, true);
        }
        // And its own next step goes through the lease handle, which refuses locally if lost.
        write("file store", lease, "next step " + step, false);
        break;
      }
      if (status.state() == State.LOST) {
        break;
      }
      for (String adapter : WebResources.ADAPTERS) {
        write(adapter, lease, "step " + step, false);
      }
      sleep(500);
    }
    if (status.state() == State.RUNNING) {
      lease.release();
      status = new Status(State.DONE, "finished and released");
      changed.accept(this);
    }
  }

  private void write(String adapter, Fenced fenced, String what, boolean late) {
    resources.attempt(
        adapter,
        fenced,
        fenced instanceof FencingToken t ? t.fence() : lease.fence(),
        device,
        device + " " + what,
        late);
  }

  private void awaitWake() {
    try {
      woken.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
