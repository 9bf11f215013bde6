package io.leasehold.lease.child;

import io.leasehold.fencing.LeaseKey;
import io.leasehold.lease.AccessPolicy;
import io.leasehold.lease.AcquireResult;
import io.leasehold.lease.LeaseStore;
import io.leasehold.testing.TestDatabase;
import java.time.Duration;

/**
 * Child process of {@code KilledProcessTest} and {@code CloseOnJvmExitTest}: acquires a lease,
 * keeps it alive, reports it on standard output and then waits to be killed. Arguments: JDBC URL,
 * user, password, account, session, TTL in milliseconds, and optionally {@code closeOnJvmExit}.
 */
public final class AcquireAndHangMain {
  private AcquireAndHangMain() {}

  public static void main(String[] args) throws Exception {
    LeaseStore store =
        LeaseStore.builder(TestDatabase.connect(args[0], args[1], args[2]))
            .accessPolicy(AccessPolicy.allowAll())
            .ttl(Duration.ofMillis(Long.parseLong(args[5])))
            .closeOnJvmExit(args.length > 6 && args[6].equals("closeOnJvmExit"))
            .build();
    AcquireResult r = store.tryAcquire(LeaseKey.of(args[3], args[4]), args[3]);
    if (!(r instanceof AcquireResult.Acquired a)) {
      System.out.println("BUSY " + r);
      System.exit(2);
      return;
    }
    a.lease().keepAlive();
    System.out.println("ACQUIRED " + a.lease().fence() + " " + a.lease().runId());
    System.out.flush();
    Thread.sleep(Long.MAX_VALUE); // until killed
  }
}
