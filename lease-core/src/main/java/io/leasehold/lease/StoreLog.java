package io.leasehold.lease;

/**
 * The store's one logger, named after {@link LeaseStore}: the warnings of what the store gave up on
 * and left to expiry (a release or close that failed), and of listeners that threw.
 */
final class StoreLog {
  private static final System.Logger LOG = System.getLogger(LeaseStore.class.getName());

  private StoreLog() {}

  /** Logs a failure the store carries on after, with what it means for the leases. */
  static void warn(String message, Throwable failure) {
    LOG.log(System.Logger.Level.WARNING, message, failure);
  }
}
