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
   * @throws IllegalArgumentException "{@code name} must be at least {@code min}, was ...", if it is
   *     smaller
   */
  public static long atLeast(long value, long min, String name) {
    if (value < min) {
      throw new IllegalArgumentException(name + " must be at least " + min + ", was " + value);
    }
    return value;
  }

  /**
   * Copies a set of names that must not be missing or hold a null.
   *
   * @param names the argument
   * @param name its name, as the caller wrote it
   * @return an unmodifiable copy
   * @throws IllegalArgumentException if the set is null or holds null
   */
  public static java.util.Set<String> names(java.util.Set<String> names, String name) {
    required(names, name);
    try {
      return java.util.Set.copyOf(names);
    } catch (NullPointerException e) {
      throw new IllegalArgumentException(name + " must not contain null");
    }
  }

  /**
   * Refuses a record whose components are missing: for records none of whose components may be
   * null.
   *
   * @param components the record's components
   * @throws IllegalArgumentException "all components are required", if any is null
   */
  public static void allRequired(Object... components) {
    for (Object c : components) {
      if (c == null) {
        throw new IllegalArgumentException("all components are required");
      }
    }
  }
}
