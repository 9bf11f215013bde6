package io.leasehold.shedlock;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;

/** The threads the ShedLock tests run tasks on, and how long they wait for each other. */
final class TestThreads {
  /** The longest any step waits for another thread. */
  static final long WAIT_SECONDS = 60;

  private TestThreads() {}

  /** Runs {@code work} on {@code thread} and returns its result. */
  static <T> T on(ExecutorService thread, Callable<T> work) throws Exception {
    return thread.submit(work).get(WAIT_SECONDS, TimeUnit.SECONDS);
  }

  /** Waits until another thread counted {@code latch} down. */
  static void await(CountDownLatch latch) {
    try {
      assertThat(latch.await(WAIT_SECONDS, TimeUnit.SECONDS))
          .as("the other thread got there")
          .isTrue();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted while waiting", e);
    }
  }
}
