/**
 * How Leasehold's schema classes apply their Liquibase changelogs, kept apart so that the fencing
 * API needs only the JDK. Not an API: its one package is exported only to the two Leasehold modules
 * that have schema classes.
 */
module io.leasehold.schema {
  requires transitive java.sql;
  requires java.logging;
  requires liquibase.core;

  exports io.leasehold.schema to
      io.leasehold.lease,
      io.leasehold.adapters;
}
