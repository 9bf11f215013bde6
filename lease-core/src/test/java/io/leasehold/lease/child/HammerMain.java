package io.leasehold.lease.child;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.lease.AccessPolicy;
import io.leasehold.lease.AcquireResult;
import io.leasehold.lease.LeaseStore;
import io.leasehold.lease.LeaseStoreException;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Child process of {@code ContentionTest}: threads competing for one key with a short TTL, each
 * acquiring and releasing as fast as it can. Waits for "GO" on standard input so both processes
 * start together, then prints {@code RESULT <acquired> <busy> <errors> <releases that reached the
 * lock timeout> <first error>}. Arguments: JDBC URL, user, password, account, session, threads,
 * attempts per thread, TTL in milliseconds.
 */
public final class HammerMain {
  private HammerMain() {}

  /**
   * The counts of one hammering.
   *
   * @param errors acquires that threw, and releases that threw for any reason but the lock timeout
   * @param releaseLockTimeouts releases that ended at their lock timeout ({@code 55P03}), waiting
   *     for the key's row lock: on a Citus coordinator, behind refused acquires (docs/scale-out.md)
   */
  public record Counts(
      int acquired, int busy, int errors, int releaseLockTimeouts, String firstError) {
    @Override
    public String toString() {
      return "RESULT "
          + acquired
          + " "
          + busy
          + " "
          + errors
          + " "
          + releaseLockTimeouts
          + " "
          + firstError;
    }
  }

  /** Whether a release failed because its wait for the key's row lock reached the lock timeout. */
  private static boolean lockTimeout(RuntimeException e) {
    return e instanceof LeaseStoreException
        && e.getCause() instanceof SQLException s
        && "55P03".equals(s.getSQLState());
  }

  public static void main(String[] args) throws Exception {
    // A pool, as services run the store: without one, every statement would start a backend with
    // cold caches, whose first plan alone can exceed a 62 ms statement budget on a loaded machine.
    HikariConfig pool = new HikariConfig();
    pool.setJdbcUrl(args[0]);
    pool.setUsername(args[1]);
    pool.setPassword(args[2]);
    pool.setMaximumPoolSize(Integer.parseInt(args[5]));
    pool.setMinimumIdle(Integer.parseInt(args[5]));
    try (HikariDataSource ds = new HikariDataSource(pool);
        LeaseStore store =
            LeaseStore.builder(ds)
                .accessPolicy(AccessPolicy.allowAll())
                .ttl(Duration.ofMillis(Long.parseLong(args[7])))
                .build()) {
      System.out.println("READY");
      System.out.flush();
      String go = new java.io.BufferedReader(new java.io.InputStreamReader(System.in)).readLine();
      if (!"GO".equals(go)) {
        System.exit(3);
      }
      Counts c =
          hammer(
              store,
              LeaseKey.of(args[3], args[4]),
              Integer.parseInt(args[5]),
              Integer.parseInt(args[6]));
      System.out.println(c);
      System.out.flush();
    }
  }

  /** Acquire-and-release from {@code threads} threads at once, {@code attempts} times each. */
  public static Counts hammer(LeaseStore store, LeaseKey key, int threads, int attempts)
      throws InterruptedException {
    AtomicInteger acquired = new AtomicInteger();
    AtomicInteger busy = new AtomicInteger();
    AtomicInteger errors = new AtomicInteger();
    AtomicInteger releaseLockTimeouts = new AtomicInteger();
    AtomicReference<String> first = new AtomicReference<>("-");
    CountDownLatch start = new CountDownLatch(1);
    Thread[] workers = new Thread[threads];
    for (int t = 0; t < threads; t++) {
      workers[t] =
          new Thread(
              () -> {
                try {
                  start.await();
                } catch (InterruptedException e) {
                  return;
                }
                for (int i = 0; i < attempts; i++) {
                  try {
                    AcquireResult r = store.tryAcquire(key, key.accountId());
                    if (r instanceof AcquireResult.Acquired a) {
                      acquired.incrementAndGet();
                      try {
                        a.lease().release();
                      } catch (RuntimeException e) {
                        if (!lockTimeout(e)) {
                          throw e;
                        }
                        releaseLockTimeouts.incrementAndGet();
                      }
                    } else if (r instanceof AcquireResult.Busy) {
                      busy.incrementAndGet();
                    }
                  } catch (RuntimeException e) {
                    errors.incrementAndGet();
                    first.compareAndSet("-", e.toString().replace('\n', ' '));
                  }
                }
              },
              "hammer-" + t);
      workers[t].start();
    }
    start.countDown();
    for (Thread w : workers) {
      w.join();
    }
    return new Counts(
        acquired.get(), busy.get(), errors.get(), releaseLockTimeouts.get(), first.get());
  }
}
