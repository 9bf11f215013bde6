package io.leasehold.adapters.jdbc;

import io.leasehold.adapters.FencedResourceContract;
import io.leasehold.adapters.Harness;
import io.leasehold.testing.TestDatabaseExtension;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The guard contract for the database writer that admits at commit. The harness's work first
 * updates the key's register row, so its row lock orders the writers' log entries as their
 * commits are ordered, which is what the contention test checks.
 */
class JdbcWriterAtCommitContractTest extends FencedResourceContract {
  @RegisterExtension static final TestDatabaseExtension db = JdbcTestSchema.extension();

  @Override
  protected Harness harness() {
    return new RegisterHarness(db.dataSource(), true);
  }
}
