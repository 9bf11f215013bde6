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

  @Test
  void everyValueReadsAsTheDriverReadsIt() throws Exception {
    try (HikariDataSource pool = db.database().newPool(1);
        Connection c = pool.getConnection();
        PreparedStatement ps = c.prepareStatement("SELECT ?::timestamptz, NULL::timestamptz")) {
      // The driver prepares the statement on the server at its fifth execution, and from then on
      // receives timestamps in binary: both forms are read.
      for (int execution = 0; execution < 8; execution++) {
        for (String value : VALUES) {
          ps.setString(1, value);
          try (ResultSet rs = ps.executeQuery()) {
            rs.next();
            Instant expected = rs.getObject(1, OffsetDateTime.class).toInstant();
            assertThat(StoreInternals.readTimestamp(rs, 1)).as(value).isEqualTo(expected);
          }
        }
      }
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        assertThat(rs.getMetaData().unwrap(org.postgresql.PGResultSetMetaData.class).getFormat(1))
            .as("the last executions were received in binary")
            .isEqualTo(1);
      }
    }
  }

  @Test
  void infinityIsLeftToTheDriver() throws Exception {
    try (HikariDataSource pool = db.database().newPool(1);
        Connection c = pool.getConnection();
        PreparedStatement ps = c.prepareStatement("SELECT 'infinity'::timestamptz")) {
      for (int execution = 0; execution < 8; execution++) {
        try (ResultSet rs = ps.executeQuery()) {
          rs.next();
          assertThat(StoreInternals.readTimestamp(rs, 1))
              .isEqualTo(rs.getObject(1, OffsetDateTime.class).toInstant());
        }
      }
    }
  }
}
