package io.leasehold.fencing;

/**
 * A guard refused to let a run act, and nothing changed: the one type to catch around fenced work.
 * Its subclasses say which refusal it was:
 *
 * <ul>
 *   <li>{@link StaleFenceException}: a newer run of the session has been admitted; this run is
 *       superseded;
 *   <li>{@link LeaseLostException}: this run's lease is known lost (or, in strict mode, not live);
 *   <li>{@link TokenVerificationException}: the token is forged, expired, out of the resource's
 *       scope for its key, or signed by a key the guard does not have ({@link
 *       TokenVerificationException#reason()});
 *   <li>the tool executor's {@code DuplicateCallException}: the same call is already running.
 * </ul>
 *
 * <p>None of them is worth retrying with the same token: stop the run, or acquire a new lease.
 * Errors of the resource itself (a file system or database failure) are {@link LeaseholdException}s
 * of other types, and not refusals.
 */
public class WriteRefusedException extends LeaseholdException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates a refusal.
   *
   * @param message which refusal, and what to do, for a person reading a log
   */
  protected WriteRefusedException(String message) {
    super(message);
  }

  /**
   * Creates a refusal with a cause.
   *
   * @param message which refusal, and what to do, for a person reading a log
   * @param cause the underlying failure
   */
  protected WriteRefusedException(String message, Throwable cause) {
    super(message, cause);
  }
}
