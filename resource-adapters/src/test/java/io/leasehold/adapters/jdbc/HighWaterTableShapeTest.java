package io.leasehold.adapters.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.leasehold.adapters.ResourceAccessException;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.StaleFenceException;
import io.leasehold.fencing.TokenVerifier;
import io.leasehold.testing.TestDatabaseExtension;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 13 (CONTRACT C16): with a high-water table whose fence column is text, stale fence 9 was
 * admitted after 10 ("9" &gt; "10" as text); with {@code search_path=evil,public}, a stale fence
 * was admitted through a look-alike table in {@code evil}.
 */
class HighWaterTableShapeTest {
  @RegisterExtension static final TestDatabaseExtension db = TestDatabaseExtension.empty();

  private static FencingToken token(LeaseKey key, long fence) {
    return new FencingToken(key, fence, UUID.randomUUID());
  }

  @Test
  void aTableOfTheWrongShapeIsRefusedAtFirstUseAndNothingIsWritten() {
    db.database().execute("CREATE SCHEMA shape");
    db.database()
        .execute(
            "CREATE TABLE shape.leasehold_high_water (account_id text NOT NULL, session_id text NOT NULL,"
                + " fence text NOT NULL, run_id uuid NOT NULL, admitted_at timestamptz NOT NULL,"
                + " PRIMARY KEY (account_id, session_id))");
    LeaseKey key = LeaseKey.of("acct", "shape");
    db.database()
        .execute(
            "INSERT INTO shape.leasehold_high_water VALUES ('acct', 'shape', '10', gen_random_uuid(), now())");
    FencedJdbcWriter writer =
        FencedJdbcWriter.builder(db.dataSource())
            .databaseSchema("shape")
            .verifier(TokenVerifier.trustEveryWriter())
            .build();
    assertThatThrownBy(() -> writer.write(token(key, 9), (c, t) -> null))
        .isInstanceOf(ResourceAccessException.class)
        .hasMessageContaining("fence is text, expected bigint")
        .hasMessageContaining("HighWaterSchema.apply");
    assertThatThrownBy(() -> writer.highWaterMark(key)).isInstanceOf(ResourceAccessException.class);
    db.database().execute("DROP SCHEMA shape CASCADE");
  }

  @Test
  void aLookAlikeTableEarlierOnTheSearchPathIsNeverUsed() throws Exception {
    HighWaterSchema.defaults().apply(db.dataSource());
    LeaseKey key = LeaseKey.of("acct", "search-path");
    FencedJdbcWriter honest =
        FencedJdbcWriter.builder(db.dataSource())
            .verifier(TokenVerifier.trustEveryWriter())
            .build();
    honest.write(token(key, 10), (c, t) -> null);

    db.database().execute("CREATE SCHEMA IF NOT EXISTS evil");
    db.database()
        .execute(
            "CREATE TABLE evil.leasehold_high_water (account_id text NOT NULL, session_id text NOT NULL,"
                + " fence bigint NOT NULL, run_id uuid NOT NULL, admitted_at timestamptz NOT NULL,"
                + " PRIMARY KEY (account_id, session_id))");
    org.postgresql.ds.PGSimpleDataSource evilPath = new org.postgresql.ds.PGSimpleDataSource();
    evilPath.setUrl(db.database().jdbcUrl());
    evilPath.setUser(db.database().server().user());
    evilPath.setPassword(db.database().server().password());
    evilPath.setOptions("-c search_path=evil,public");
    try (var c = evilPath.getConnection();
        var rs = c.createStatement().executeQuery("SHOW search_path")) {
      rs.next();
      assertThat(rs.getString(1)).startsWith("evil");
    }
    FencedJdbcWriter writer =
        FencedJdbcWriter.builder(evilPath).verifier(TokenVerifier.trustEveryWriter()).build();
    assertThatThrownBy(() -> writer.write(token(key, 9), (c, t) -> null))
        .isInstanceOf(StaleFenceException.class);
    assertThat(writer.highWaterMark(key)).hasValue(10);
    db.database().execute("DROP SCHEMA evil CASCADE");
  }
}
