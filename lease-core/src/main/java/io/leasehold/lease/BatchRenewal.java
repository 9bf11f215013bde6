package io.leasehold.lease;

import io.leasehold.fencing.internal.Arguments;
import java.util.List;

/**
 * How a batch renewal ended ({@link LeaseStore#renewAll}).
 *
 * @param renewed how many leases were renewed
 * @param lost the leases that were not renewed and are lost now
 */
public record BatchRenewal(int renewed, List<Lease> lost) {
  /**
   * Copies the list.
   *
   * @throws IllegalArgumentException if {@code lost} is null
   */
  public BatchRenewal {
    Arguments.required(lost, "lost");
    lost = List.copyOf(lost);
  }
}
