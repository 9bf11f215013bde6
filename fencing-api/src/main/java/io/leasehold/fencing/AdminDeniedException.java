package io.leasehold.fencing;

/**
 * The guard's {@link AdminPolicy} refused an administrative operation; nothing changed. Not worth
 * retrying as the same operator.
 */
public class AdminDeniedException extends LeaseholdException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception.
   *
   * @param operator the refused operator
   * @param what the operation
   */
  public AdminDeniedException(String operator, String what) {
    super(
        "operator '"
            + operator
            + "' may not "
            + what
            + " (the guard's AdminPolicy refused; configure one that names the operator)");
  }
}
