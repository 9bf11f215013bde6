/**
 * Benchmarks: Leasehold side by side with the database limit (pgbench, plain JDBC) and with the
 * Java peers (ShedLock's JDBC provider, Spring Integration's JdbcLockRegistry). Start with {@link
 * io.leasehold.benchmarks.BenchMain}.
 */
package io.leasehold.benchmarks;
