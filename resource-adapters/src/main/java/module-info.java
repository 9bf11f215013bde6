/**
 * Resources that refuse stale writers: the file store, the tool executor and its journals, the
 * database writer, and agent-tool fencing. Depends on the fencing API, not on the lease store.
 *
 * <p>The JDBC and tool packages are open, not only exported, because their Liquibase changelogs
 * are resources in them, read through the class loader.
 */
module io.leasehold.adapters {
  requires transitive io.leasehold.fencing;
  requires transitive java.sql;
  requires transitive com.fasterxml.jackson.databind;
  requires org.postgresql.jdbc;
  requires java.naming; // PGSimpleDataSource is Referenceable
  requires liquibase.core;

  exports io.leasehold.adapters;
  exports io.leasehold.adapters.admin;
  exports io.leasehold.adapters.agent;
  exports io.leasehold.adapters.file;
  exports io.leasehold.adapters.jdbc;
  exports io.leasehold.adapters.tool;
  opens io.leasehold.adapters.jdbc;
  opens io.leasehold.adapters.tool;
}
