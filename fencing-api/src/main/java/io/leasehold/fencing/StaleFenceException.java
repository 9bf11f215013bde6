package io.leasehold.fencing;

/**
 * A resource refused an operation because its token's fence is lower than the highest fence the
 * resource has admitted for the lease key: a newer run has written since. Never worth retrying with
 * the same token; the run that presented it has lost its lease.
 */
public class StaleFenceException extends WriteRefusedException {
  private static final long serialVersionUID = 1L;

  private final transient FencingToken presented;
  private final long highest;

  /**
   * Creates the exception.
   *
   * @param presented the refused token
   * @param highest the resource's high-water mark for the token's key
   */
  public StaleFenceException(FencingToken presented, long highest) {
    super(
        "stale fence "
            + presented.fence()
            + " for "
            + presented.key()
            + " (run "
            + presented.runId()
            + "): the resource has already admitted fence "
            + highest);
    this.presented = presented;
    this.highest = highest;
  }

  /**
   * The refused token.
   *
   * @return the token
   */
  public FencingToken presented() {
    return presented;
  }

  /**
   * The fence that was presented.
   *
   * @return the presented fence
   */
  public long presentedFence() {
    return presented.fence();
  }

  /**
   * The highest fence the resource has admitted for the key.
   *
   * @return the high-water mark, greater than {@link #presentedFence()}
   */
  public long highestFence() {
    return highest;
  }

  /**
   * The lease key of the refused operation.
   *
   * @return the key
   */
  public LeaseKey key() {
    return presented.key();
  }
}
