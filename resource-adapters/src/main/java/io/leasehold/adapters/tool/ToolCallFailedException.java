package io.leasehold.adapters.tool;

import io.leasehold.fencing.GuardListener;
import io.leasehold.fencing.LeaseholdException;
import java.util.UUID;

/**
 * An admitted tool call threw; the cause is what it threw, and the journal records the call as
 * failed. Whether retrying helps depends on the tool and the cause; its effect may have happened in
 * part.
 */
public class ToolCallFailedException extends LeaseholdException
    implements GuardListener.Classified {
  private static final long serialVersionUID = 1L;

  private final UUID callId;
  private final String tool;

  /**
   * Creates the exception.
   *
   * @param callId the call
   * @param tool the tool's name
   * @param cause what the tool threw
   */
  public ToolCallFailedException(UUID callId, String tool, Throwable cause) {
    super("tool " + tool + " failed (call " + callId + "): " + cause, cause);
    this.callId = callId;
    this.tool = tool;
  }

  /**
   * The failed call's id.
   *
   * @return the id
   */
  public UUID callId() {
    return callId;
  }

  /**
   * The tool's name.
   *
   * @return the name
   */
  public String tool() {
    return tool;
  }

  /**
   * {@inheritDoc}
   *
   * @return {@link GuardListener.Decision#ADMITTED}
   */
  @Override
  public GuardListener.Decision decision() {
    return GuardListener.Decision.ADMITTED;
  }
}
