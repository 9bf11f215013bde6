package io.leasehold.examples;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.fencing.LeaseKey;
import io.leasehold.lease.AcquireResult;
import io.leasehold.lease.LeaseSchema;
import io.leasehold.lease.LeaseStore;
import io.leasehold.lease.LeaseWatcher;
import io.leasehold.testing.TestDatabaseExtension;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The live-status sample runs. */
class LiveStatusExampleTest {
  @RegisterExtension
  static final TestDatabaseExtension db =
      TestDatabaseExtension.withTemplate("lease", LeaseSchema.defaults()::apply);

  @Test
  void screensHearTheAcquire() throws Exception {
    BlockingQueue<String> screen = new LinkedBlockingQueue<>();
    try (LeaseStore store = LiveStatusExample.publishingStore(db.dataSource());
        LeaseWatcher watcher = LiveStatusExample.watch(store, db.dataSource(), screen::add)) {
      assertThat(screen.poll(10, TimeUnit.SECONDS)).isEqualTo("RESYNCED: FREE (nobody)");
      AcquireResult r = store.tryAcquire(LeaseKey.of("acct-7", "chat-1"), "acct-7");
      assertThat(screen.poll(10, TimeUnit.SECONDS))
          .isEqualTo(
              "ACQUIRED: HELD ("
                  + r.acquiredLease().orElseThrow().holder()
                  + ", fence "
                  + r.acquiredLease().orElseThrow().fence()
                  + ")");
      assertThat(watcher.isListening()).isTrue();
    }
  }
}
