package io.leasehold.lease;

import io.leasehold.testing.TestDatabaseExtension;

/** The test database every lease-core test class uses: a copy of a template with the schema. */
final class LeaseDatabase {
  private LeaseDatabase() {}

  static TestDatabaseExtension extension() {
    return TestDatabaseExtension.withTemplate("lease", ds -> LeaseSchema.defaults().apply(ds));
  }
}
