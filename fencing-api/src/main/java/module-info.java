/**
 * Fencing tokens and the guards that refuse stale writers: what a resource owner needs, without
 * the lease store. Jackson and Liquibase are optional: the JSON module needs the first, and the
 * schema helper (for the other Leasehold modules only) the second.
 */
module io.leasehold.fencing {
  requires static com.fasterxml.jackson.databind;
  requires static liquibase.core;
  requires static transitive java.sql;
  requires static java.logging;

  exports io.leasehold.fencing;
  exports io.leasehold.fencing.json;
  exports io.leasehold.fencing.mark;
  // Support for the other Leasehold modules' schema classes, not an API (see its package doc).
  exports io.leasehold.fencing.schema to io.leasehold.lease, io.leasehold.adapters;
  // The argument checks the other Leasehold modules share, not an API (see its package doc).
  exports io.leasehold.fencing.internal to io.leasehold.lease, io.leasehold.adapters;
}
