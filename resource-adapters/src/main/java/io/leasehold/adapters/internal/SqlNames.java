package io.leasehold.adapters.internal;

import java.util.regex.Pattern;

/**
 * The names the adapters splice into SQL (tables, prefixes, schemas): they cannot be bind
 * parameters, so each is held to a lower-case identifier before any statement is built, and the
 * rule and its wording live here once.
 */
public final class SqlNames {
  private static final Pattern IDENTIFIER = Pattern.compile("[a-z_][a-z0-9_]{0,39}");
  private static final Pattern QUALIFIED =
      Pattern.compile("([a-z_][a-z0-9_]{0,39}\\.)?[a-z_][a-z0-9_]{0,39}");

  private SqlNames() {}

  /**
   * Checks a plain name.
   *
   * @param name the name
   * @param what what it names, for the message ("high-water table name")
   * @return {@code name}
   * @throws IllegalArgumentException if it is null or not a lower-case identifier of at most 40
   *     characters
   */
  public static String identifier(String name, String what) {
    if (name == null || !IDENTIFIER.matcher(name).matches()) {
      throw new IllegalArgumentException(
          what + " '" + name + "' is not a lower-case SQL identifier of at most 40 characters");
    }
    return name;
  }

  /**
   * Checks a name that may carry its schema ({@code schema.table}).
   *
   * @param name the name
   * @param what what it names, for the message
   * @return {@code name}
   * @throws IllegalArgumentException if it is null or not one or two dot-separated lower-case
   *     identifiers of at most 40 characters each
   */
  public static String qualifiedIdentifier(String name, String what) {
    if (name == null || !QUALIFIED.matcher(name).matches()) {
      throw new IllegalArgumentException(
          what
              + " '"
              + name
              + "' is not a lower-case SQL identifier (optionally"
              + " schema-qualified) of at most 40 characters each");
    }
    return name;
  }
}
