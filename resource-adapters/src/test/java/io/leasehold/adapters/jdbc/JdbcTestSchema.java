package io.leasehold.adapters.jdbc;

import io.leasehold.fencing.TokenVerifier;
import io.leasehold.lease.AccessPolicy;
import io.leasehold.lease.LeaseStore;
import io.leasehold.testing.TestDatabaseExtension;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;

/** The resource database of the JDBC tests: the high-water table plus a register and a log. */
public final class JdbcTestSchema {
  private JdbcTestSchema() {}

  /**
   * A writer on {@code ds} that trusts every token, in the given mode; the caller adds the rest.
   */
  public static FencedJdbcWriter.Builder trustingWriter(DataSource ds, boolean admitAtCommit) {
    return FencedJdbcWriter.builder(ds)
        .verifier(TokenVerifier.trustEveryWriter())
        .admitAtCommit(admitAtCommit);
  }

  /** A lease store on {@code ds} that lets every caller act, for tests whose runs hold leases. */
  public static LeaseStore leaseStore(DataSource ds) {
    return LeaseStore.builder(ds).accessPolicy(AccessPolicy.allowAll()).build();
  }

  public static TestDatabaseExtension extension() {
    return TestDatabaseExtension.withTemplate("highwater", JdbcTestSchema::apply);
  }

  public static void apply(DataSource ds) {
    HighWaterSchema.defaults().apply(ds);
    // The lease table too: the online verification mode checks it from the admission statement.
    io.leasehold.lease.LeaseSchema.defaults().apply(ds);
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement()) {
      s.execute(
          "CREATE TABLE register (account_id text, session_id text, value text NOT NULL,"
              + " PRIMARY KEY (account_id, session_id))");
      // seq is drawn inside the fenced transaction, under the high-water row lock, so its order
      // is the admission order of one key's writers.
      s.execute(
          "CREATE TABLE op_log (seq bigserial PRIMARY KEY, account_id text, session_id text,"
              + " fence bigint NOT NULL)");
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }
}
