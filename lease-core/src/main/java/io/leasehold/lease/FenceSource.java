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
 * <p>Two more ways a store's fences could go back are refused the same way: a sequence set back
 * below the fence floor, the highest fence the sweep deleted (the acquire still draws above the
 * floor; the refusal names the {@code setval} that repairs the sequence), and a store pointed at a
 * Citus worker instead of the coordinator (see {@link #workerRefusal()}).
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
    // none); the fence floor (null if its row is gone) and the sequence's position (the last value
    // it handed out, 0 if none; null if there is no sequence); whether Citus's catalog is there.
    // Fails with 42P01 if the table or its floor is missing. Catalog reads and the floor's one row:
    // no row of the lease table is read or locked. No parameters.
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
            + "')),"
            + " (SELECT max(fence) FROM "
            + t
            + "_fence_floor),"
            + " COALESCE(pg_sequence_last_value(to_regclass('"
            + seq
            + "')), CASE WHEN to_regclass('"
            + seq
            + "') IS NOT NULL THEN 0 END),"
            + " to_regclass('pg_catalog.pg_dist_local_group') IS NOT NULL";
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
    Checked checked =
        runner.readRow(
            statement,
            () -> "check the fence sequence of " + schema.table(),
            rs -> {
              String wrongSequence =
                  refusal(rs.getString(1), rs.getString(2), rs.getString(3), rs.getBoolean(4));
              long cache = rs.getLong(5);
              long floor = rs.getLong(6);
              boolean hasFloor = !rs.wasNull();
              long position = rs.getLong(7);
              String refusal =
                  wrongSequence != null
                      ? wrongSequence
                      : cache > 1
                          ? cacheRefusal(cache)
                          : hasFloor && position < floor ? floorRefusal(position, floor) : null;
              return new Checked(refusal, rs.getBoolean(8));
            });
    String refusal = checked.citus() ? workerRefusal() : null;
    if (refusal == null) {
      refusal = checked.refusal();
    }
    if (refusal != null) {
      confirmed = false; // a probe that finds it broken stops the grants too, until repaired
      throw new LeaseStoreException(
          refusal + "; this store grants nothing until it is repaired (CONTRACT C3)", null);
    }
    confirmed = true;
  }

  /** The first statement's answer: what is wrong (null if nothing), and whether Citus is there. */
  private record Checked(String refusal, boolean citus) {}

  /**
   * On a Citus node (its catalog is there), whether this is a node other than the coordinator, and
   * if so the refusal. A worker holds a copy of the fence sequence with a range of its own (2^48
   * and up for the first worker), and a copy of the lease table's metadata, so a store pointed at
   * it passed every other check and granted fences from that range: an outside check had a key
   * granted 281474976710664 there and 103522 on the coordinator afterwards, and a sweep from the
   * worker deleted a row the coordinator's sweep keeps. The coordinator's group is 0 (a node not
   * yet added to a cluster has 0 too, and is a coordinator of its own). Asked only where the
   * catalog exists, so plain PostgreSQL sends nothing more. Both names are qualified with {@code
   * pg_catalog}: a table of that name planted earlier in the search path must not make a worker
   * pass for the coordinator. No parameters.
   */
  private String workerRefusal() {
    int group =
        runner.execute(
            "SELECT groupid FROM pg_catalog.pg_dist_local_group",
            () -> "ask which Citus node this is",
            ps -> {},
            (rs, opened) -> rs.next() ? rs.getInt(1) : 0);
    return group == 0
        ? null
        : "this database is a Citus worker (node group "
            + group
            + "), not the coordinator: fences drawn here come from the worker's own range of the"
            + " sequence "
            + schema.sequence()
            + ", not the coordinator's, so a key's fence could go back. Point the store's data"
            + " source at the Citus coordinator (docs/scale-out.md)";
  }

  /**
   * The sweep deleted rows with fences up to the floor, and the sequence has been set back below it
   * since: the acquire still draws above the floor, but the sequence should be repaired.
   */
  private String floorRefusal(long position, long floor) {
    String t = schema.table();
    return "the fence sequence "
        + schema.sequence()
        + " was set back to "
        + position
        + ", below the fence floor "
        + floor
        + " (the highest fence the sweep deleted from "
        + t
        + "), so a swept key could be given a fence it already had: run SELECT setval('"
        + schema.sequence()
        + "', GREATEST((SELECT max(fence) FROM "
        + t
        + "_fence_floor), (SELECT COALESCE(max(fence), 0) FROM "
        + t
        + ")))";
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
