package io.leasehold.fencing;

/**
 * Who is being arbitrated: one session of one account.
 *
 * <p>Both parts are non-blank text of at most {@value #MAX_LENGTH} characters without control
 * characters, and well-formed UTF-16 (no lone surrogate, which would not survive encoding to UTF-8
 * and could make two different keys collide). The lease store keeps at most one live lease per key.
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
    checkUtf16(name, value);
  }

  /** Refuses a lone (unpaired) surrogate. */
  static void checkUtf16(String name, String value) {
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (Character.isHighSurrogate(c)
          && i + 1 < value.length()
          && Character.isLowSurrogate(value.charAt(i + 1))) {
        i++;
      } else if (Character.isSurrogate(c)) {
        throw new IllegalArgumentException(
            name + " is not well-formed UTF-16: lone surrogate at index " + i);
      }
    }
  }

  @Override
  public String toString() {
    return accountId + "/" + sessionId;
  }
}
