package io.leasehold.adapters.jdbc;

import io.leasehold.adapters.FencedResourceContract;
import io.leasehold.adapters.Harness;
import io.leasehold.testing.TestDatabaseExtension;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The guard contract for the database writer, on real PostgreSQL. */
class JdbcWriterContractTest extends FencedResourceContract {
  @RegisterExtension static final TestDatabaseExtension db = JdbcTestSchema.extension();

  @Override
  protected Harness harness() {
    return new RegisterHarness(db.dataSource());
  }
}
