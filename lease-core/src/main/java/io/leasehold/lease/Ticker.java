package io.leasehold.lease;

/**
 * A monotonic time source in nanoseconds, used only for the run's local deadline; expiry itself is
 * always decided by the database clock. Tests inject a fake ticker to move local time forward
 * without sleeping.
 */
@FunctionalInterface
public interface Ticker {
  /**
   * Nanoseconds since an arbitrary origin; only differences between two readings mean anything.
   *
   * @return the current reading
   */
  long read();

  /**
   * The JVM's monotonic clock, {@link System#nanoTime()}.
   *
   * @return the system ticker
   */
  static Ticker system() {
    return System::nanoTime;
  }
}
