package io.leasehold.testing;

import java.time.Duration;

/**
 * Time budgets (TTLs, the statement and lock timeouts derived from them, bounds on how long a test
 * waits) sized for the server the tests run on.
 *
 * <p>A test states its budget as it is on one PostgreSQL and passes it through {@link #scaled}. On
 * one PostgreSQL (embedded, external or Testcontainers; CI) the factor is 1 and the budget is
 * exactly what the test says. On a Citus coordinator ({@code -Dleasehold.test.db=citus}) every
 * statement is a coordinator round trip plus a distributed transaction on a worker, measured at
 * about 3.6 times the latency of one PostgreSQL on the same machine (docs/scale-out.md), so a
 * statement budget sized for one server ends healthy statements with {@code 57014}: a timeout the
 * contract allows, but not what those tests are about. There the factor is {@value
 * #CITUS_DEFAULT_FACTOR}, or {@value #FACTOR_PROPERTY} when set. Scaling a budget never waits: it
 * only moves the limits a test sets or asserts against.
 */
public final class TestBudgets {
  /** System property overriding the factor on Citus (a whole number, at least 1). */
  public static final String FACTOR_PROPERTY = "leasehold.test.citus.budgetFactor";

  /** The factor on Citus when {@value #FACTOR_PROPERTY} is not set. */
  public static final int CITUS_DEFAULT_FACTOR = 8;

  private TestBudgets() {}

  /**
   * Whether the tests run on a Citus coordinator ({@value PostgresServer#KIND_PROPERTY} is {@value
   * CitusCoordinator#KIND}).
   *
   * @return true on Citus, false on one PostgreSQL
   */
  public static boolean onCitus() {
    return CitusCoordinator.KIND.equals(System.getProperty(PostgresServer.KIND_PROPERTY));
  }

  /**
   * The factor every budget is multiplied by: 1 on one PostgreSQL, whatever is set; on Citus
   * {@value #FACTOR_PROPERTY}, else {@value #CITUS_DEFAULT_FACTOR}.
   *
   * @return the factor, at least 1
   * @throws IllegalStateException if the property is set on Citus but is not a whole number of at
   *     least 1
   */
  public static int factor() {
    if (!onCitus()) {
      return 1;
    }
    String set = System.getProperty(FACTOR_PROPERTY);
    if (set == null || set.isBlank()) {
      return CITUS_DEFAULT_FACTOR;
    }
    try {
      int factor = Integer.parseInt(set.trim());
      if (factor >= 1) {
        return factor;
      }
    } catch (NumberFormatException e) {
      throw new IllegalStateException(
          FACTOR_PROPERTY + " must be a whole number of at least 1, was '" + set + "'", e);
    }
    throw new IllegalStateException(
        FACTOR_PROPERTY + " must be a whole number of at least 1, was '" + set + "'");
  }

  /**
   * A budget stated for one PostgreSQL, sized for the server the tests run on.
   *
   * @param onOneServer the budget on one PostgreSQL
   * @return {@code onOneServer} times {@link #factor()}
   */
  public static Duration scaled(Duration onOneServer) {
    return onOneServer.multipliedBy(factor());
  }

  /**
   * A count of milliseconds or seconds stated for one PostgreSQL (a child process's TTL argument, a
   * bound in seconds), sized for the server the tests run on.
   *
   * @param onOneServer the amount on one PostgreSQL
   * @return {@code onOneServer} times {@link #factor()}
   */
  public static long scaled(long onOneServer) {
    return Math.multiplyExact(onOneServer, (long) factor());
  }
}
