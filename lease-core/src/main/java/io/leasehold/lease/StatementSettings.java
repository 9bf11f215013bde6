package io.leasehold.lease;

import java.time.Duration;

/**
 * What every statement of a store is built from: the validated table and sequence names (never
 * request data: values always travel as bind parameters) and the two timeouts every statement runs
 * under (CONTRACT C5), sent one of two ways, chosen by {@link LeaseStoreBuilder#dedicatedPool}:
 *
 * <ul>
 *   <li>A pool shared with the application (the default): each statement is sent as one pipelined
 *       string {@code SELECT statement_timestamp(), set_config('lock_timeout', ..., true),
 *       set_config('statement_timeout', ..., true); <statement>} on an auto-commit connection. The
 *       driver sends both parts in one round trip with one Sync, and PostgreSQL runs everything up
 *       to a Sync as one implicit transaction: the timeouts ({@code set_config(..., true)} is
 *       {@code SET LOCAL}) hold for the statement and end with it, so they never reach the
 *       application's own queries on the same connection.
 *   <li>A pool that serves the store alone: {@link #sessionTimeouts} sets both once per connection,
 *       for the session, and the statements go without the opening. The benchmarks measured the
 *       opening at a third of a refusal's server time (docs/performance.md), partly because every
 *       commit resets {@code SET LOCAL} settings.
 * </ul>
 *
 * <p>On a Citus coordinator each statement also runs behind {@link #citusOpening}, in a transaction
 * block, so that the timeouts reach the workers where its row locks are waited for.
 *
 * <p>Expiry is decided by the database clock: {@code statement_timestamp()}, the time PostgreSQL
 * began the statement. It is one value for the whole statement, so every comparison and every new
 * timestamp in a statement agree without a CTE to hold the time, and it is read before the
 * statement waits for any row lock.
 *
 * <p>The statements are as small as the contract allows on purpose: the benchmarks measured a CTE
 * holding the time, a lookup subquery, check constraints and a row trigger each costing 10% to 40%
 * of the database's acquire + release throughput, and executor start-up of a four-part acquire plan
 * as much again (see docs/performance.md).
 *
 * @param schema the names every statement is built from
 * @param dedicatedPool true when the store's pool serves the store alone: the timeouts are set once
 *     per connection ({@link #sessionTimeouts}) and the statements have no opening
 */
record StatementSettings(
    LeaseSchema schema, Duration lockTimeout, Duration statementTimeout, boolean dedicatedPool) {
  /** The opening of every statement: empty when the session carries the timeouts. */
  String opening() {
    return dedicatedPool ? "" : begin(lockTimeout, statementTimeout);
  }

  /**
   * The session settings of a connection in a pool that serves the store alone, sent once per
   * connection ({@code set_config(..., false)} lasts for the session), or null when every statement
   * carries its own opening. No parameters.
   */
  String sessionTimeouts() {
    return dedicatedPool
        ? "SELECT set_config('lock_timeout', '"
            + lockTimeout.toMillis()
            + "', false), set_config('statement_timeout', '"
            + statementTimeout.toMillis()
            + "', false)"
        : null;
  }

  /**
   * Whether the database is a Citus coordinator: the {@code citus} extension is installed in it
   * (the changelog's Citus change set asks the same). One row, one boolean. No parameters.
   */
  static final String ON_CITUS =
      "SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_extension WHERE extname = 'citus')";

  /**
   * On a Citus coordinator, what goes ahead of every statement, in a transaction block of its own
   * ({@link StatementRunner}). A row lock the statement waits for is taken on the worker that holds
   * the key's shard, in a backend with its own settings: {@code set_config} in the opening bounds
   * the coordinator's statement only, so a wait behind a contender ran into the statement timeout
   * ({@code 57014}, an error) instead of the lock timeout ({@code 55P03}, Busy: CONTRACT C18).
   * Citus passes a setting to the workers only as a {@code SET LOCAL} command inside a transaction
   * block, and only while {@code citus.propagate_set_commands} is {@code local}; it then sends the
   * commands with the {@code BEGIN} of each worker's part of the transaction, so they cost no round
   * trip of their own. Session settings ({@link #sessionTimeouts}) never reach the workers.
   *
   * <p>Plain PostgreSQL never gets this: a transaction block is one more round trip (its commit),
   * which the pipelined opening avoids (docs/performance.md), and there the opening's own settings
   * already bound the waits. (Sent there, {@code citus.propagate_set_commands} would be a harmless
   * placeholder.) Timeouts in whole milliseconds. No parameters.
   */
  String citusOpening() {
    return "SET LOCAL citus.propagate_set_commands = 'local'; SET LOCAL lock_timeout = "
        + lockTimeout.toMillis()
        + "; SET LOCAL statement_timeout = "
        + statementTimeout.toMillis()
        + "; ";
  }

  /** The opening of every pipelined short transaction; timeouts in whole milliseconds. */
  static String begin(Duration lockTimeout, Duration statementTimeout) {
    return begin(lockTimeout, statementTimeout, "");
  }

  /** The opening, with {@code more} settings in the same SELECT. */
  static String begin(Duration lockTimeout, Duration statementTimeout, String more) {
    // One statement for both timeouts: measurably cheaper than two SET commands.
    return "SELECT statement_timestamp(), set_config('lock_timeout', '"
        + lockTimeout.toMillis()
        + "', true), set_config('statement_timeout', '"
        + statementTimeout.toMillis()
        + "', true)"
        + more
        + "; ";
  }

  /** {@code statement} wrapped in a pipelined short transaction. */
  static String shortTransaction(
      Duration lockTimeout, Duration statementTimeout, String statement) {
    return begin(lockTimeout, statementTimeout) + statement;
  }
}
