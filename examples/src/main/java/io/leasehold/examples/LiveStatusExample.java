package io.leasehold.examples;

import io.leasehold.fencing.LeaseKey;
import io.leasehold.lease.AccessPolicy;
import io.leasehold.lease.LeaseEvent;
import io.leasehold.lease.LeaseStore;
import io.leasehold.lease.LeaseWatcher;
import java.util.function.Consumer;
import javax.sql.DataSource;

/** docs/live-status.md's sample, compiled on every build. */
public final class LiveStatusExample {
  private LiveStatusExample() {}

  /**
   * A store that publishes its changes to watchers (stores publish nothing by default).
   *
   * @param dataSource the lease database
   * @return the store
   */
  public static LeaseStore publishingStore(DataSource dataSource) {
    // region publish
    LeaseStore store =
        LeaseStore.builder(dataSource)
            .accessPolicy(AccessPolicy.callerOwnsAccount())
            .notifyChanges(true) // acquires, takeovers and releases reach LeaseWatchers
            .build();
    // endregion
    return store;
  }

  /**
   * Pushes a session's lease status to the screens that show it.
   *
   * @param store the lease store
   * @param listenSource where the watcher's one listening connection comes from
   * @param screens receives every change
   * @return the running watcher
   */
  public static LeaseWatcher watch(
      LeaseStore store, DataSource listenSource, Consumer<String> screens) {
    // region watch
    LeaseWatcher watcher = LeaseWatcher.start(store, listenSource); // one connection, one thread
    watcher.subscribe(
        LeaseKey.of("acct-7", "chat-1"),
        (LeaseEvent event) -> {
          // ACQUIRED, TAKEN_OVER, RELEASED (from the database), EXPIRED, RENEWED (noticed at the
          // known expiry), RESYNCED (after a reconnect, and first of all for a new subscriber)
          String who =
              event.status().owner().map(o -> o.holder() + ", fence " + o.fence()).orElse("nobody");
          screens.accept(event.kind() + ": " + event.status().state() + " (" + who + ")");
        });
    // endregion
    return watcher;
  }
}
