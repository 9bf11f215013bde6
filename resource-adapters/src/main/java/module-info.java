/**
 * Resources that refuse stale writers: the file store, the tool executor and its journals, the
 * database writer, and agent-tool fencing. Depends on the fencing API, not on the lease store.
 *
 * <p>The file store and the in-process parts need nothing else. pgjdbc is needed only by {@code
 * ResetMarkCommand} (it builds a data source from a JDBC URL), and Liquibase only by {@code
 * HighWaterSchema.apply} and {@code ToolJournalSchema.apply}: both are optional, so an
 * application that uses them requires them itself. Nothing is opened: the changelogs live under
 * {@code META-INF/leasehold/}, which is not a package. {@code io.leasehold.adapters.internal} is
 * not exported.
 */
module io.leasehold.adapters {
  requires transitive io.leasehold.fencing;
  requires transitive java.sql;
  requires transitive com.fasterxml.jackson.databind;
  requires static org.postgresql.jdbc;
  requires static java.naming; // PGSimpleDataSource is Referenceable

  exports io.leasehold.adapters;
  exports io.leasehold.adapters.admin;
  exports io.leasehold.adapters.agent;
  exports io.leasehold.adapters.file;
  exports io.leasehold.adapters.jdbc;
  exports io.leasehold.adapters.tool;
}
