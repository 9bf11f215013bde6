package io.leasehold.fencing;

/**
 * Who is being arbitrated: one session of one account.
 *
 * <p>Both parts are non-blank text of at most {@value #MAX_LENGTH} characters without control
 * characters. The lease store keeps at most one live lease per key.
 *
 * @param accountId the account that owns the session
 * @param sessionId the session (conversation) within the account
 */
public record LeaseKey(String accountId, String sessionId) {
  /** Longest accepted account or session id, in characters. */
  public static final int MAX_LENGTH = 128;

  /**
   * Validates both parts.
   *
   * @throws IllegalArgumentException if a part is null, blank, too long or has control characters
   */
  public LeaseKey {
    check("accountId", accountId);
    check("sessionId", sessionId);
  }

  /**
   * Shorthand for {@code new LeaseKey(accountId, sessionId)}.
   *
   * @param accountId the account that owns the session
   * @param sessionId the session within the account
   * @return the key
   */
  public static LeaseKey of(String accountId, String sessionId) {
    return new LeaseKey(accountId, sessionId);
  }

  private static void check(String name, String value) {
    if (value == null) {
      throw new IllegalArgumentException(name + " must not be null");
    }
    if (value.isBlank()) {
      throw new IllegalArgumentException(name + " must not be blank");
    }
    if (value.length() > MAX_LENGTH) {
      throw new IllegalArgumentException(
          name + " is " + value.length() + " characters long; at most " + MAX_LENGTH + " allowed");
    }
    for (int i = 0; i < value.length(); i++) {
      if (Character.isISOControl(value.charAt(i))) {
        throw new IllegalArgumentException(name + " must not contain control characters");
      }
    }
  }

  @Override
  public String toString() {
    return accountId + "/" + sessionId;
  }
}
