package io.leasehold.testkit;

import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.StaleFenceException;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The child process of {@link CrossProcessGuardContract}: two threads write one key's register
 * through a guard opened by a {@link GuardHarnessFactory}, with fences of one parity that rise with
 * the clock, so two such processes interleave whichever runs faster. Arguments: factory class,
 * storage, account, session, parity, writes per thread. Prints {@code READY}, waits for {@code GO}
 * on standard input, then prints {@code DONE <admitted> <refused> <max admitted fence>}.
 */
public final class TwoProcessWriterMain {
  private TwoProcessWriterMain() {}

  /**
   * Runs the writer.
   *
   * @param args see the class javadoc
   * @throws Exception if the harness cannot be opened or a write fails other than as stale
   */
  public static void main(String[] args) throws Exception {
    GuardHarnessFactory factory =
        (GuardHarnessFactory) Class.forName(args[0]).getDeclaredConstructor().newInstance();
    GuardHarness h = factory.open(args[1]);
    LeaseKey key = LeaseKey.of(args[2], args[3]);
    System.out.println("READY");
    System.out.flush();
    String go =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
    if (!"GO".equals(go)) {
      throw new IllegalStateException("expected GO, got " + go);
    }
    long start = System.nanoTime();
    int parity = Integer.parseInt(args[4]);
    int writes = Integer.parseInt(args[5]);
    AtomicInteger admitted = new AtomicInteger();
    AtomicInteger refused = new AtomicInteger();
    AtomicLong max = new AtomicLong();
    Thread[] threads = new Thread[2];
    for (int t = 0; t < threads.length; t++) {
      int thread = t;
      threads[t] =
          new Thread(
              () -> {
                for (int i = 0; i < writes; i++) {
                  // Slot s (2 ms of the clock) gives fence 2s + 1 + parity, plus some jitter.
                  long slot = (System.nanoTime() - start) / 2_000_000;
                  long fence = 2L * (slot + ThreadLocalRandom.current().nextInt(3)) + 1 + parity;
                  try {
                    h.write(
                        key,
                        new FencingToken(key, fence, UUID.randomUUID()),
                        fence + ":" + parity + ":" + thread + ":" + i);
                    admitted.incrementAndGet();
                    max.accumulateAndGet(fence, Math::max);
                  } catch (StaleFenceException e) {
                    refused.incrementAndGet();
                  }
                }
              });
      threads[t].start();
    }
    for (Thread t : threads) {
      t.join();
    }
    System.out.println("DONE " + admitted + " " + refused + " " + max);
  }
}
