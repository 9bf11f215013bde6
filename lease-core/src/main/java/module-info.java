/**
 * The lease store: which run of a session may act now, kept by PostgreSQL.
 *
 * <p>The package is open, not only exported, because its Liquibase changelog and SQL script are
 * resources in it, which Liquibase reads through the class loader: resources of a named module's
 * package are found only in open packages.
 */
module io.leasehold.lease {
  requires transitive io.leasehold.fencing;
  requires transitive java.sql;
  requires org.postgresql.jdbc;
  requires liquibase.core;

  exports io.leasehold.lease;
  opens io.leasehold.lease;
}
