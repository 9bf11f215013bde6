package io.leasehold.adapters.internal;

/**
 * Where the mark tables of {@link SqlMarkStore} differ, as SQL fragments spliced into its
 * statements: the high-water table also records the admitted run and the time, and its mark of 0 is
 * no row; the journal's row keeps the admission sequence value of its last reset, from which its
 * evidence (its admitted calls) counts.
 *
 * @param recordsRun whether a row records the admitted run and the time
 * @param candidate the admission's candidate row {@code k} beyond account, session and fence: its
 *     column names and their parameters
 * @param admitted what the admission writes beyond account, session and fence, from {@code k}
 * @param reset what a reset writes beyond account, session and fence
 * @param callTable the table of admitted calls, the evidence, or null for none
 */
record SqlMarkShape(
    boolean recordsRun, Columns candidate, Columns admitted, Columns reset, String callTable) {
  /** The run id recorded in a high-water row an operator set: no run ever has it. */
  static final String RESET_RUN = "00000000-0000-0000-0000-000000000000";

  private static final String RUN_COLUMNS = ", run_id, admitted_at";
  private static final String RUN_UPDATE =
      ", run_id = EXCLUDED.run_id, admitted_at = EXCLUDED.admitted_at";

  /**
   * The high-water table: the run and the time (the Node guard writes them too); no evidence. The
   * time is the statement's ({@code statement_timestamp()}, stable): a volatile {@code
   * clock_timestamp()} would reach the {@code ON CONFLICT DO UPDATE}, which Citus refuses on a
   * distributed table (docs/scale-out.md).
   */
  static final SqlMarkShape HIGH_WATER =
      new SqlMarkShape(
          true,
          new Columns(", run_id", ", ?::pg_catalog.uuid", ""),
          new Columns(RUN_COLUMNS, ", k.run_id, pg_catalog.statement_timestamp()", RUN_UPDATE),
          new Columns(
              RUN_COLUMNS, ", '" + RESET_RUN + "', pg_catalog.statement_timestamp()", RUN_UPDATE),
          null);

  /**
   * The journal's mark table: a reset draws a new {@code reset_seq}, so only calls admitted after
   * it count as evidence.
   */
  static SqlMarkShape journal(String callTable, String admissionSeq) {
    return new SqlMarkShape(
        false,
        new Columns("", "", ""),
        new Columns("", "", ""),
        new Columns(
            ", reset_seq",
            ", pg_catalog.nextval('" + admissionSeq + "')",
            ", reset_seq = EXCLUDED.reset_seq"),
        callTable);
  }

  /**
   * Columns a statement writes (or a candidate row has) beyond account, session and fence, each
   * fragment empty or starting with a comma.
   *
   * @param names their names
   * @param values their values (or the candidate's parameters)
   * @param update their update on conflict
   */
  record Columns(String names, String values, String update) {
    /** The head of an INSERT of a mark row with these columns into {@code table}, as {@code m}. */
    String insertInto(String table) {
      return "INSERT INTO " + table + " AS m (account_id, session_id, fence" + names + ")";
    }

    /** The key's row, if it has one, instead: its fence and these columns overwritten. */
    String onConflictUpdate() {
      return " ON CONFLICT (account_id, session_id) DO UPDATE SET fence = EXCLUDED.fence" + update;
    }
  }

  boolean hasEvidence() {
    return callTable != null;
  }

  /**
   * The highest fence of the key's calls admitted after the sequence value {@code resetSeq} (found
   * backwards through the partial index on admitted calls), or null if none: SQL over the given key
   * expressions. Null (no SQL) where there is no evidence.
   */
  String evidence(String account, String session, String resetSeq) {
    if (callTable == null) {
      return null;
    }
    return "(SELECT c.fence FROM "
        + callTable
        + " AS c WHERE "
        + SqlMarkStore.sameKey("c", account, session)
        + " AND c.admitted_seq IS NOT NULL"
        + " AND c.admitted_seq OPERATOR(pg_catalog.>) "
        + resetSeq
        + " ORDER BY c.fence DESC LIMIT 1)";
  }

  /**
   * Whether a mark can be trusted: not negative, and not below its evidence (null: nothing was
   * admitted since the last reset). The admission raises only a trusted mark, and the row reads
   * return this verdict for the message, so the rule is written once, here.
   *
   * @param evidence the evidence, or null where the table has none
   */
  static String trusted(String fence, String evidence) {
    String notNegative = fence + " OPERATOR(pg_catalog.>=) 0";
    return evidence == null
        ? "(" + notNegative + ")"
        : "("
            + notNegative
            + " AND COALESCE("
            + evidence
            + ", "
            + fence
            + ") OPERATOR(pg_catalog.<=) "
            + fence
            + ")";
  }

  /** The evidence as a column: a typed null where the table has none. */
  static String column(String evidence) {
    return evidence == null ? "CAST(NULL AS pg_catalog.int8)" : evidence;
  }
}
