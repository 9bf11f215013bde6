package io.leasehold.lease;

/**
 * Time arithmetic in the statements, written so that Citus can run it (docs/scale-out.md).
 *
 * <p>{@code timestamptz + interval} is a STABLE operator (an interval of days or months depends on
 * the session's time zone), and Citus evaluates every stable function of an {@code UPDATE} once, on
 * the coordinator, so it refuses one applied to a column of the row ("STABLE functions used in
 * UPDATE queries cannot be called with column references"). The statements add only microseconds,
 * which mean the same in every zone; through UTC wall time ({@code AT TIME ZONE 'UTC'} both ways,
 * and {@code timestamp + interval}) the same sum is made of immutable operators, which Citus sends
 * to the worker with the row. Where the column stands alone the statements compare it with {@code
 * statement_timestamp() - ...} instead, which has no column in it.
 */
final class SqlTime {
  private SqlTime() {}

  /**
   * SQL for {@code instant} plus {@code micros} microseconds, exact, immutable.
   *
   * @param instant a timestamptz expression
   * @param micros a bigint expression (a parameter or a column)
   */
  static String plusMicros(String instant, String micros) {
    return "((("
        + instant
        + ") AT TIME ZONE 'UTC') + ("
        + micros
        + ") * interval '1 microsecond') AT TIME ZONE 'UTC'";
  }
}
