package io.leasehold.examples;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.lease.LeaseSchema;
import io.leasehold.testing.TestDatabaseExtension;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** docs/testing.md's example: a class database copied from a migrated template. */
class TemplateDatabaseTest {
  // region extension
  @RegisterExtension
  static final TestDatabaseExtension db =
      TestDatabaseExtension.withTemplate("lease", ds -> LeaseSchema.defaults().apply(ds));

  // endregion

  @Test
  void classDatabaseStartsWithTheSchemaAndNoRows() throws Exception {
    try (Connection c = db.dataSource().getConnection();
        Statement s = c.createStatement();
        ResultSet r = s.executeQuery("SELECT count(*) FROM leasehold_lease")) {
      r.next();
      assertThat(r.getInt(1)).isZero();
    }
  }
}
