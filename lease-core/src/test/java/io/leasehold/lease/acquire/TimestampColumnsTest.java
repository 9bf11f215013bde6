package io.leasehold.lease.acquire;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import io.leasehold.lease.StoreInternals;
import io.leasehold.lease.support.LeaseDatabase;
import io.leasehold.testing.TestDatabaseExtension;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The store reads a {@code timestamptz} received in binary itself (the driver's conversion is a
 * tenth of a cycle's client CPU): every value, in text and in binary, must read as the driver reads
 * it, to the microsecond, on both sides of PostgreSQL's epoch.
 */
class TimestampColumnsTest {
  @RegisterExtension static final TestDatabaseExtension db = LeaseDatabase.extension();

  private static final List<String> VALUES =
      List.of(
          "2026-12-06 01:41:42.123456+00",
          "2000-01-01 00:00:00+00",
          "1999-12-31 23:59:59.999999+00",
          "1970-01-01 00:00:00.000001+00",
          "2262-04-11 23:47:16.854775+00",
          "4713-01-01 00:00:00+00 BC",
          "294276-12-31 23:59:59.999999+00");

  /** A test's use of one prepared statement. */
  @FunctionalInterface
  private interface StatementUse {
    void use(PreparedStatement ps) throws Exception;
  }

  /**
   * Runs {@code use} {@link #EXECUTIONS} times on one prepared statement: the driver prepares it on
   * the server at its fifth execution, and from then on receives timestamps in binary, so both
   * forms are read.
   */
  private static void executedInBothForms(String sql, StatementUse use) throws Exception {
    try (HikariDataSource pool = db.database().newPool(1);
        Connection c = pool.getConnection();
        PreparedStatement ps = c.prepareStatement(sql)) {
      for (int execution = 0; execution < EXECUTIONS; execution++) {
        use.use(ps);
      }
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        assertThat(rs.getMetaData().unwrap(org.postgresql.PGResultSetMetaData.class).getFormat(1))
            .as("the last executions were received in binary")
            .isEqualTo(1);
      }
    }
  }

  private static final int EXECUTIONS = 8;

  @Test
  void everyValueReadsAsTheDriverReadsIt() throws Exception {
    executedInBothForms(
        "SELECT ?::timestamptz, NULL::timestamptz",
        ps -> {
          for (String value : VALUES) {
            ps.setString(1, value);
            try (ResultSet rs = ps.executeQuery()) {
              rs.next();
              Instant expected = rs.getObject(1, OffsetDateTime.class).toInstant();
              assertThat(StoreInternals.readTimestamp(rs, 1)).as(value).isEqualTo(expected);
            }
          }
        });
  }

  @Test
  void infinityIsLeftToTheDriver() throws Exception {
    executedInBothForms(
        "SELECT 'infinity'::timestamptz",
        ps -> {
          try (ResultSet rs = ps.executeQuery()) {
            rs.next();
            assertThat(StoreInternals.readTimestamp(rs, 1))
                .isEqualTo(rs.getObject(1, OffsetDateTime.class).toInstant());
          }
        });
  }
}
