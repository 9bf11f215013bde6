package io.leasehold.fencing;

import java.time.Instant;

/**
 * An audited reset of a guard's high-water mark for one key: the recovery after a forged token or a
 * leaked key raised a mark no honest run can reach (docs/security.md). Guards record every reset
 * (who, when, why, from what to what) where their marks live.
 *
 * @param key the key whose mark was reset
 * @param previousMark the mark before, 0 if there was none
 * @param newMark the mark after, 0 to forget the key (the next token of any fence is admitted)
 * @param operator who reset it
 * @param reason why, as the operator wrote it
 * @param at when, by the guard's clock
 */
public record MarkReset(
    LeaseKey key, long previousMark, long newMark, String operator, String reason, Instant at) {
  /** Longest accepted operator name and reason, in characters. */
  public static final int MAX_TEXT = 500;

  /**
   * Validates the components.
   *
   * @throws IllegalArgumentException if a component is null, a mark is negative, or the operator or
   *     reason is blank, too long or has control characters
   */
  public MarkReset {
    if (key == null || at == null) {
      throw new IllegalArgumentException("key and at are required");
    }
    checkMark("previousMark", previousMark);
    checkMark("newMark", newMark);
    checkText("operator", operator);
    checkText("reason", reason);
  }

  static void checkMark(String name, long mark) {
    if (mark < 0) {
      throw new IllegalArgumentException(name + " must be 0 (none) or a fence, was " + mark);
    }
  }

  /**
   * Checks an operator name or a reason.
   *
   * @param name what it is, for the message
   * @param text the text
   * @return the text
   * @throws IllegalArgumentException if it is null, blank, too long or has control characters
   */
  public static String checkText(String name, String text) {
    if (text == null || text.isBlank()) {
      throw new IllegalArgumentException(name + " must not be blank");
    }
    if (text.length() > MAX_TEXT) {
      throw new IllegalArgumentException(name + " must have at most " + MAX_TEXT + " characters");
    }
    if (text.chars().anyMatch(Character::isISOControl)) {
      throw new IllegalArgumentException(name + " must not contain control characters");
    }
    LeaseKey.checkUtf16(name, text);
    return text;
  }
}
