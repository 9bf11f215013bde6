package io.leasehold.adapters;

import io.leasehold.testkit.GuardHarness;
import io.leasehold.fencing.TokenVerifier;
import io.leasehold.adapters.file.FencedFileStore;
import io.leasehold.adapters.file.FileHarness;
import io.leasehold.adapters.jdbc.RegisterHarness;
import io.leasehold.adapters.tool.ToolHarness;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.StaleFenceException;
import java.nio.file.Path;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * Child process of {@link MultiProcessWriteTest}: two threads write one key's register through an
 * adapter with fences of one parity that rise with the clock, so two such processes interleave. Arguments:
 * kind ({@code file}, {@code tool}, {@code jdbc}), location (directory, journal file or JDBC URL),
 * account, session, parity, writes per thread, and for {@code jdbc} user and password. Prints {@code DONE <admitted> <refused> <max
 * admitted fence>}.
 */
public final class ConcurrentWriterMain {
  private ConcurrentWriterMain() {}

  public static void main(String[] args) throws Exception {
    GuardHarness h =
        switch (args[0]) {
          case "file" -> new FileHarness(Path.of(args[1]));
          case "tool" -> new ToolHarness(Path.of(args[1]), new ConcurrentHashMap<>());
          case "jdbc" -> {
            PGSimpleDataSource ds = new PGSimpleDataSource();
            ds.setUrl(args[1]);
            ds.setUser(args[6]);
            ds.setPassword(args[7]);
            yield new RegisterHarness(ds);
          }
          default -> throw new IllegalArgumentException(args[0]);
        };
    LeaseKey key = LeaseKey.of(args[2], args[3]);
    // Start together with the other writer process: wait for the parent's GO.
    System.out.println("READY");
    System.out.flush();
    String go = new java.io.BufferedReader(new java.io.InputStreamReader(System.in)).readLine();
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
                  // Fences follow the clock, not the loop, so the two processes interleave
                  // whichever runs faster: slot s gives fence 2s + 1 + parity, plus some jitter.
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
