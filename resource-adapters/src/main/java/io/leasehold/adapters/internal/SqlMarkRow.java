package io.leasehold.adapters.internal;

import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.mark.MarkStoreException;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * A key's mark row as the row reads return it.
 *
 * @param fence the mark, or null if the key has no row
 * @param evidence the highest fence admitted since the last reset, or null
 * @param trusted the verdict of {@code SqlMarkStore.trusted}
 */
record SqlMarkRow(Long fence, Long evidence, boolean trusted) {
  static SqlMarkRow read(ResultSet rs) throws SQLException {
    long fence = rs.getLong("fence");
    Long mark = rs.wasNull() ? null : fence;
    long evidence = rs.getLong("evidence");
    return new SqlMarkRow(mark, rs.wasNull() ? null : evidence, rs.getBoolean("trusted"));
  }

  long mark() {
    return fence == null ? 0 : fence;
  }

  void requireTrusted(String table, LeaseKey key) {
    if (!trusted) {
      throw damage(table, key);
    }
  }

  /** Why an untrusted mark refuses every admission of its key, and the repair. */
  MarkStoreException damage(String table, LeaseKey key) {
    String refused =
        " Every admission of the key is refused until an operator resets its mark (resetMark on the guard)";
    if (mark() < 0) {
      return new MarkStoreException(
          "the mark row of "
              + key
              + " in "
              + table
              + " holds "
              + fence
              + ", which is not a fence: the table was"
              + " edited outside Leasehold."
              + refused
              + " to the lease table's current fence for the key",
          null);
    }
    return new MarkStoreException(
        "the mark of "
            + key
            + " in "
            + table
            + " is "
            + (fence == null ? "missing" : fence)
            + ", but calls with fence "
            + evidence
            + " were admitted since its last reset: the mark row was deleted or lowered outside Leasehold."
            + refused
            + " to at least "
            + evidence,
        null);
  }
}
