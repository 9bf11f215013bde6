package io.leasehold.adapters.internal;

/**
 * Where the mark tables of {@link SqlMarkStore} differ, as SQL fragments: the high-water table also
 * records the admitted run and the time, and its mark of 0 is no row; the journal's row keeps the
 * admission sequence value of its last reset, from which its evidence (its admitted calls) counts.
 *
 * @param recordsRun whether a row records the admitted run and the time (the high-water table)
 * @param callTable the table of admitted calls, the evidence (the journal's), or null
 * @param admissionSeq the sequence that numbers admissions and resets (the journal's), or null
 */
record SqlMarkShape(boolean recordsRun, String callTable, String admissionSeq) {
  /** The run id recorded in a high-water row an operator set: no run ever has it. */
  static final String RESET_RUN = "00000000-0000-0000-0000-000000000000";

  static final SqlMarkShape HIGH_WATER = new SqlMarkShape(true, null, null);

  static SqlMarkShape journal(String callTable, String admissionSeq) {
    return new SqlMarkShape(false, callTable, admissionSeq);
  }

  boolean hasEvidence() {
    return callTable != null;
  }

  /**
   * The highest fence of the key's calls admitted after the sequence value {@code resetSeq}
   * (found backwards through the partial index on admitted calls), or null: SQL over the given
   * key expressions. Null (no SQL) where there is no evidence.
   */
  String evidence(String account, String session, String resetSeq) {
    if (callTable == null) {
      return null;
    }
    return "(SELECT c.fence FROM " + callTable + " AS c WHERE c.account_id" + SqlMarkStore.EQ + account + " AND c.session_id" + SqlMarkStore.EQ
        + session + " AND c.admitted_seq IS NOT NULL AND c.admitted_seq OPERATOR(pg_catalog.>) " + resetSeq
        + " ORDER BY c.fence DESC LIMIT 1)";
  }

  /** The admission's extra columns, their values from {@code k}, {@code k}'s extra parameters and names, the update. */
  String runColumns() {
    return recordsRun ? ", run_id, admitted_at" : "";
  }

  String runValues() {
    return recordsRun ? ", k.run_id, clock_timestamp()" : "";
  }

  String runCandidate() {
    return recordsRun ? ", ?::uuid" : "";
  }

  String runCandidateNames() {
    return recordsRun ? ", run_id" : "";
  }

  String runUpdate() {
    return recordsRun ? ", run_id = EXCLUDED.run_id, admitted_at = EXCLUDED.admitted_at" : "";
  }

  /** A reset's extra columns and values: a run no run has, or a new reset sequence value. */
  String resetColumns() {
    return recordsRun ? ", run_id, admitted_at" : ", reset_seq";
  }

  String resetValues() {
    return recordsRun ? ", '" + RESET_RUN + "', clock_timestamp()" : ", pg_catalog.nextval('" + admissionSeq + "')";
  }

  String resetUpdate() {
    return recordsRun ? ", run_id = EXCLUDED.run_id, admitted_at = EXCLUDED.admitted_at" : ", reset_seq = EXCLUDED.reset_seq";
  }
}
