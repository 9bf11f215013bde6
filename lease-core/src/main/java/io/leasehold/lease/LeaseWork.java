package io.leasehold.lease;

/**
 * The work {@link LeaseStore#runExclusive} runs while it holds a lease. The work is given the lease
 * explicitly: pass it (or its token) to every fenced resource, and check {@link Lease#isLost()} or
 * honour interruption between steps.
 *
 * @param <T> the result
 */
@FunctionalInterface
public interface LeaseWork<T> {
  /**
   * Runs the work.
   *
   * @param lease the held lease
   * @return the result
   * @throws Exception anything the work throws; it is rethrown (checked ones wrapped in {@link
   *     LeaseWorkException}) unless the lease was lost, in which case it is reported in {@link
   *     RunOutcome.Lost}
   */
  T run(Lease lease) throws Exception;
}
