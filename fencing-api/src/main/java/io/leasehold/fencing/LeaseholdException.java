package io.leasehold.fencing;

/**
 * Root of every exception Leasehold throws on purpose. Unchecked: callers decide where to handle
 * it. Each subclass says in its javadoc whether retrying can help.
 */
public class LeaseholdException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates an exception with a message.
   *
   * @param message what went wrong, for a person reading a log
   */
  public LeaseholdException(String message) {
    super(message);
  }

  /**
   * Creates an exception with a message and a cause.
   *
   * @param message what went wrong, for a person reading a log
   * @param cause the underlying failure
   */
  public LeaseholdException(String message, Throwable cause) {
    super(message, cause);
  }
}
