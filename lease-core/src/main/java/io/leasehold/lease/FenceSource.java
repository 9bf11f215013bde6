package io.leasehold.lease;

/**
 * The check that a store draws its fences from the sequence its lease table's fences come from
 * (CONTRACT C3), made once per store before its first grant and by its health probe.
 *
 * <p>Fences increase per key only if every grant on a table draws from one sequence: a store
 * configured with another sequence on the same table (an outside check had store A on the defaults
 * and store B on {@code new LeaseSchema("leasehold_lease", "other_seq")}) granted a key fence 1
 * after A had granted it 51, and every resource then refused the newer run as stale, or admitted an
 * older one. The schema binds the sequence to the table's {@code fence} column ({@code ALTER
 * SEQUENCE ... OWNED BY}, change set 7 of the changelog, and the plain SQL script), so the table
 * itself says where its fences come from; this check compares that with the store's configuration
 * and refuses, with the repair, when they differ or the table says nothing.
 *
 * <p>A start-up check rather than a condition in the acquire statement: the hot path stays as it
 * was (one statement, no catalog lookup), and so does what a distributed PostgreSQL (Citus) must
 * run. Once confirmed, a store does not check again: rebinding a live table's sequence is an
 * operator's deliberate act, not a misconfiguration. A refused check is made again on the next
 * acquire, so a repair applied while the store runs is picked up without a restart.
 *
 * <p>Thread-safe: concurrent first acquires may each run the check; the outcome is the same.
 */
final class FenceSource {
  private final StatementRunner runner;
  private final LeaseSchema schema;
  private final String statement;
  private volatile boolean confirmed;

  FenceSource(StatementRunner runner, StatementSettings settings) {
    this.runner = runner;
    this.schema = settings.schema();
    String t = schema.table();
    String seq = schema.sequence();
    String bound = "to_regclass(pg_get_serial_sequence('" + t + "', 'fence'))";
    // Columns: the sequence bound to the table's fence column (schema-qualified, then its name
    // alone; nulls if none), the store's own sequence as the search_path resolves it (null if there
    // is none), whether the two are one, and the store's sequence's cache size (null if there is
    // none). Fails with 42P01 if the table is missing. Catalog reads only: no row of the table is
    // read or locked. No parameters.
    this.statement =
        settings.opening()
            + "SELECT pg_get_serial_sequence('"
            + t
            + "', 'fence'),"
            + " (SELECT relname FROM pg_class WHERE oid = "
            + bound
            + "),"
            + " (SELECT quote_ident(n.nspname) || '.' || quote_ident(c.relname) FROM pg_class c"
            + " JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.oid = to_regclass('"
            + seq
            + "')),"
            + " COALESCE("
            + bound
            + " = to_regclass('"
            + seq
            + "'), false),"
            + " (SELECT seqcache FROM pg_sequence WHERE seqrelid = to_regclass('"
            + seq
            + "'))";
  }

  /**
   * Returns if the store's sequence is the one bound to its table's fence column.
   *
   * @throws LeaseStoreException if it is not, naming both and the repair, or if the check fails
   */
  void confirm() {
    if (!confirmed) {
      check();
    }
  }

  /**
   * Checks again even if a check passed before: the health probe's answer, so a sequence altered or
   * rebound while the store runs shows up in the probe (the acquire itself never lets a key's fence
   * go back, see {@link AcquireStatements#acquire}).
   *
   * @throws LeaseStoreException as {@link #confirm()}
   */
  void check() {
    String refusal =
        runner.execute(
            statement,
            () -> "check the fence sequence of " + schema.table(),
            ps -> {},
            (rs, opened) -> {
              rs.next();
              String wrongSequence =
                  refusal(rs.getString(1), rs.getString(2), rs.getString(3), rs.getBoolean(4));
              long cache = rs.getLong(5);
              return wrongSequence != null || cache <= 1 ? wrongSequence : cacheRefusal(cache);
            });
    if (refusal != null) {
      confirmed = false; // a probe that finds it broken stops the grants too, until repaired
      throw new LeaseStoreException(
          refusal + "; this store grants nothing until it is repaired (CONTRACT C3)", null);
    }
    confirmed = true;
  }

  /**
   * A sequence that caches values hands each connection its own block, so two acquires on two
   * connections can draw fences out of order: a later run of a key could get a lower fence.
   */
  private String cacheRefusal(long cache) {
    return "the fence sequence "
        + schema.sequence()
        + " caches "
        + cache
        + " values per connection, so"
        + " fences drawn on two connections can come out of order and a newer run could get a lower fence:"
        + " run ALTER SEQUENCE "
        + schema.sequence()
        + " CACHE 1 (the schema creates it so)";
  }

  /**
   * What is wrong, or null if nothing is.
   *
   * @param bound the sequence bound to the table's fence column, schema-qualified, or null
   * @param boundName its name alone, or null
   * @param configured the store's sequence as the database resolves it, schema-qualified, or null
   *     if there is none
   * @param same whether both are the same sequence
   */
  private String refusal(String bound, String boundName, String configured, boolean same) {
    String t = schema.table();
    String s = schema.sequence();
    if (same) {
      return null;
    }
    if (bound == null) {
      return "the lease table "
          + t
          + " has no fence sequence bound to its fence column (a schema"
          + " created before change set 7 of the lease changelog), so this store cannot tell that its"
          + " sequence "
          + s
          + " is the one the table's fences come from: apply the schema again with "
          + schema.describeApply()
          + ", which binds it in place, or, if you migrate with your own tool,"
          + " run ALTER SEQUENCE "
          + s
          + " OWNED BY "
          + t
          + ".fence once you are sure every store on "
          + t
          + " uses "
          + s;
    }
    String other =
        new LeaseSchema(t, boundName).equals(LeaseSchema.defaults())
            ? "LeaseSchema.defaults()"
            : "new LeaseSchema(\"" + t + "\", \"" + boundName + "\")";
    return "the lease table "
        + t
        + " draws its fences from the sequence "
        + bound
        + " (bound to "
        + t
        + ".fence), but this store is configured with the sequence "
        + s
        + (configured == null ? " (which does not exist)" : " (" + configured + ")")
        + ": fences from two sequences on one table would not increase per key, so a new run could get"
        + " a lower fence than an earlier one. Configure this store with "
        + other;
  }
}
