package io.leasehold.examples.demo;

import io.leasehold.adapters.file.FencedFileStore;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.TokenVerifier;
import io.leasehold.lease.AccessPolicy;
import io.leasehold.lease.AcquireRequest;
import io.leasehold.lease.AcquireResult;
import io.leasehold.lease.Lease;
import io.leasehold.lease.LeaseStore;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * One device of {@link ProcessDemo}, in its own JVM: presses Run until it acquires the session,
 * then writes the parts of its answer into the shared file store, one every 150 ms, and releases.
 * Prints one line per event on standard output. Arguments: JDBC URL, user, password, device name,
 * file store directory, TTL in milliseconds, number of parts.
 */
public final class DeviceMain {
  private DeviceMain() {}

  /**
   * Runs the device.
   *
   * @param args see the class description
   * @throws InterruptedException if interrupted
   */
  public static void main(String[] args) throws InterruptedException {
    PGSimpleDataSource ds = new PGSimpleDataSource();
    ds.setUrl(args[0]);
    ds.setUser(args[1]);
    ds.setPassword(args[2]);
    String device = args[3];
    FencedFileStore files =
        FencedFileStore.builder(Path.of(args[4]))
            .verifier(TokenVerifier.trustEveryWriter())
            .auditLog(true)
            .open();
    Duration ttl = Duration.ofMillis(Long.parseLong(args[5]));
    int parts = Integer.parseInt(args[6]);
    LeaseKey key = LeaseKey.of("acct-7", "chat-1");
    try (LeaseStore store =
        LeaseStore.builder(ds)
            .accessPolicy(AccessPolicy.callerOwnsAccount())
            .ttl(ttl)
            .defaultHolder(device)
            .build()) {
      Lease lease = null;
      boolean reported = false;
      while (lease == null) {
        AcquireResult r = store.tryAcquire(AcquireRequest.of(key, "acct-7"));
        if (r instanceof AcquireResult.Acquired a) {
          lease = a.lease().keepAlive();
        } else if (r instanceof AcquireResult.Busy b && !reported) {
          System.out.println(
              "BUSY "
                  + b.status()
                      .owner()
                      .map(o -> o.holder() + " holds fence " + o.fence())
                      .orElse("?"));
          reported = true;
        } else {
          Thread.sleep(50);
        }
      }
      System.out.println("ACQUIRED fence " + lease.fence() + " run " + lease.runId());
      for (int part = 1; part <= parts; part++) {
        String text = "part " + part + " by " + device + " (fence " + lease.fence() + ")";
        files.write(
            lease, "acct-7/chat-1/part-" + part + ".md", text.getBytes(StandardCharsets.UTF_8));
        System.out.println("WROTE part " + part);
        Thread.sleep(150);
      }
      System.out.println("RELEASED " + lease.release());
    }
  }
}
