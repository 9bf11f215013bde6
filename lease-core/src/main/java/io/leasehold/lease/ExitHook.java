package io.leasehold.lease;

/**
 * The shutdown hook of {@link LeaseStoreBuilder#closeOnJvmExit}: closes the store, releasing its
 * leases, when the JVM exits.
 */
final class ExitHook {
  private ExitHook() {}

  static Thread install(LeaseStore store) {
    // In the root thread group: a hook created in a group that is gone by the time the JVM exits
    // (mvn exec:java destroys the group its main ran in) cannot start.
    ThreadGroup root = Thread.currentThread().getThreadGroup();
    while (root.getParent() != null) {
      root = root.getParent();
    }
    Thread hook = new Thread(root, () -> closeAtExit(store), "leasehold-store-close-at-exit");
    Runtime.getRuntime().addShutdownHook(hook);
    return hook;
  }

  /** Removes the hook after an explicit close; nothing when the hook itself is closing. */
  static void remove(Thread hook) {
    if (hook == null || Thread.currentThread() == hook) {
      return;
    }
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException e) {
      // The JVM is exiting already; the hook finds the store closed.
    }
  }

  private static void closeAtExit(LeaseStore store) {
    try {
      store.close();
    } catch (RuntimeException e) {
      StoreLog.warn("closing the lease store at JVM exit failed; its leases will expire", e);
    }
  }
}
