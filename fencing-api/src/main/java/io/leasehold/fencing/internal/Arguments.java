package io.leasehold.fencing.internal;

/**
 * The argument checks every Leasehold builder and record makes, with one wording, so that a
 * caller's mistake reads the same wherever it is made: an {@link IllegalArgumentException} that
 * names the argument. Not an API.
 */
public final class Arguments {
  private Arguments() {}

  /**
   * Refuses a missing argument.
   *
   * @param value the argument
   * @param name its name, as the caller wrote it
   * @param <T> its type
   * @return {@code value}
   * @throws IllegalArgumentException "{@code name} must not be null", if it is null
   */
  public static <T> T required(T value, String name) {
    if (value == null) {
      throw new IllegalArgumentException(name + " must not be null");
    }
    return value;
  }

  /**
   * Refuses a number below its floor.
   *
   * @param value the argument
   * @param min the smallest it may be
   * @param name its name, as the caller wrote it
   * @return {@code value}
   * @throws IllegalArgumentException "{@code name} must be at least {@code min}, was ...", if it
   *     is smaller
   */
  public static long atLeast(long value, long min, String name) {
    if (value < min) {
      throw new IllegalArgumentException(name + " must be at least " + min + ", was " + value);
    }
    return value;
  }
}
