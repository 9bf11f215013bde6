package io.leasehold.reliability;

import java.time.Duration;

/**
 * Faults of a database the torture run does not own: failovers and switchovers of an HA cluster
 * (see {@link FailoverRun}). The run calls {@link #inject} once per {@link #every} while its
 * workers run, on the injector's thread; an injection may take as long as the fault lasts.
 */
interface DatabaseFaults {
  /**
   * The interval between database faults.
   *
   * @return the interval
   */
  Duration every();

  /**
   * Injects the n-th database fault (1-based) and returns what it did.
   *
   * @param n the fault's number
   * @return a description, starting with its kind and a colon-free word (for the report's counts)
   */
  String inject(int n);
}
