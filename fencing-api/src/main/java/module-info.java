/**
 * Fencing tokens and the guards that refuse stale writers: what a resource owner needs, without the
 * lease store. Needs nothing beyond the JDK; tokens in Jackson JSON are {@code
 * leasehold-fencing-json}'s.
 */
module io.leasehold.fencing {
  requires static transitive java.sql;

  exports io.leasehold.fencing;
  exports io.leasehold.fencing.mark;
  // What the other Leasehold modules share, not an API (see its package doc).
  exports io.leasehold.fencing.internal to
      io.leasehold.lease,
      io.leasehold.adapters.file,
      io.leasehold.adapters;
}
