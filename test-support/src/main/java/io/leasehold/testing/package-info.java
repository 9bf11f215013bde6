/**
 * A real PostgreSQL for every test (CONTRACT C14).
 *
 * <p>{@link io.leasehold.testing.TestDatabaseExtension} gives each test class a fresh database of
 * its own on one server per JVM. Which server is chosen once, by {@link
 * io.leasehold.testing.PostgresServer#shared()}:
 *
 * <ul>
 *   <li>by default an embedded PostgreSQL (zonky's binaries, started on first use, stopped at JVM
 *       exit);
 *   <li>{@code LEASEHOLD_TEST_JDBC_URL} (with {@code LEASEHOLD_TEST_JDBC_USER} and {@code
 *       LEASEHOLD_TEST_JDBC_PASSWORD}) an external server where that user may create databases;
 *   <li>{@code -Dleasehold.test.db=testcontainers} Testcontainers' PostgreSQL, where Docker runs.
 * </ul>
 */
package io.leasehold.testing;
