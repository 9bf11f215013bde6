package io.leasehold.adapters.tool;

import io.leasehold.fencing.GuardListener;
import java.util.UUID;

/**
 * A call was refused because the same run has a call with the same tool and idempotency key in
 * flight: the idempotency key is reserved when a call is admitted, so concurrent duplicates run the
 * tool once. The refused call is journaled as refused and the tool did not run. Retry after the
 * first call finished: the retry is answered from the journal.
 */
public class DuplicateCallException extends io.leasehold.fencing.WriteRefusedException
    implements GuardListener.Classified {
  private static final long serialVersionUID = 1L;

  private final UUID inFlight;

  /**
   * Creates the exception.
   *
   * @param tool the tool
   * @param idempotencyKey the key
   * @param inFlight the call holding the key
   */
  public DuplicateCallException(String tool, String idempotencyKey, UUID inFlight) {
    super(
        "tool "
            + tool
            + " with idempotency key '"
            + idempotencyKey
            + "' is already running as call "
            + inFlight
            + "; this duplicate was not started (retry once it finished to get its result)");
    this.inFlight = inFlight;
  }

  /**
   * The call in flight that holds the idempotency key.
   *
   * @return its id
   */
  public UUID inFlight() {
    return inFlight;
  }

  /**
   * {@inheritDoc}
   *
   * @return {@link GuardListener.Decision#DUPLICATE}
   */
  @Override
  public GuardListener.Decision decision() {
    return GuardListener.Decision.DUPLICATE;
  }
}
