/**
 * Resources that refuse stale writers: the tool executor and its journals, the database writer, and
 * agent-tool fencing; with the file store, which this module brings along ({@code requires
 * transitive io.leasehold.adapters.file}, artifact {@code leasehold-file-store}, which an
 * application that only stores files takes alone). Depends on the fencing API, not on the lease
 * store.
 *
 * <p>The JDBC writer needs nothing else. On the module path three dependencies are optional, so an
 * application that uses them requires them itself: Jackson (the tool executor, its journals and
 * agent-tool fencing: {@code requires com.fasterxml.jackson.databind}), pgjdbc (only {@code
 * ResetMarkCommand}, which builds a data source from a JDBC URL) and Leasehold's schema support
 * with Liquibase (only {@code HighWaterSchema.apply} and {@code ToolJournalSchema.apply}: {@code
 * requires io.leasehold.schema}, or apply {@code sqlScript()} with plain JDBC). Nothing is opened:
 * the changelogs live under {@code META-INF/leasehold/}, which is not a package. {@code
 * io.leasehold.adapters.internal} is not exported.
 */
module io.leasehold.adapters {
  // The file store and ResourceAccessException, which this module's API names; requiring this
  // module keeps giving an application the file store, as before it had a module of its own.
  requires transitive io.leasehold.adapters.file;
  requires transitive io.leasehold.fencing;
  requires transitive java.sql;
  // Static, and not transitive (javac would then want it in every reader's build): the JDBC writer
  // compiles and runs without Jackson; a module that uses the tool executor, whose API has
  // Jackson's types, requires Jackson itself.
  requires static com.fasterxml.jackson.databind;
  requires static io.leasehold.schema;
  requires static org.postgresql.jdbc;
  requires static java.naming; // PGSimpleDataSource is Referenceable

  exports io.leasehold.adapters.admin;
  exports io.leasehold.adapters.agent;
  exports io.leasehold.adapters.jdbc;
  exports io.leasehold.adapters.tool;
}
