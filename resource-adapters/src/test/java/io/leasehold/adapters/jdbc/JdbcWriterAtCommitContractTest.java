package io.leasehold.adapters.jdbc;

/**
 * The guard contract for the database writer that admits at commit. The harness's work first
 * updates the key's register row, so its row lock orders the writers' log entries as their commits
 * are ordered, which is what the contention test checks.
 */
class JdbcWriterAtCommitContractTest extends JdbcWriterContractTest {
  @Override
  public boolean admitsAtCommit() {
    return true;
  }
}
