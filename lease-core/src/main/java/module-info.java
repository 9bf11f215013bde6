/**
 * The lease store: which run of a session may act now, kept by PostgreSQL.
 *
 * <p>Nothing is opened: the Liquibase changelog and the SQL script live under {@code
 * META-INF/leasehold/}, which is not a package, so Liquibase finds them through the class loader on
 * the module path too.
 */
module io.leasehold.lease {
  requires transitive io.leasehold.fencing;
  requires transitive java.sql;
  requires org.postgresql.jdbc;
  requires io.leasehold.schema;

  exports io.leasehold.lease;
}
