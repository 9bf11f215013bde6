package io.leasehold.adapters.jdbc;

import io.leasehold.fencing.AdminPolicy;
import io.leasehold.fencing.Fenced;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.testkit.GuardHarness;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import javax.sql.DataSource;

/** The database writer as a register: one row per key, and a log of admitted writes. */
public final class RegisterHarness implements GuardHarness {
  private final DataSource ds;
  private final FencedJdbcWriter writer;
  private final FencedJdbcWriter.Builder builder;

  public RegisterHarness(DataSource ds) {
    this(ds, false);
  }

  /** A harness whose writer the caller configured (verification, mode); "ops" may reset marks. */
  public RegisterHarness(DataSource ds, FencedJdbcWriter.Builder builder) {
    this.ds = ds;
    this.builder = builder;
    this.writer = builder.adminPolicy(AdminPolicy.operators(Set.of("ops"))).build();
  }

  /**
   * @param ds the resource database
   * @param admitAtCommit the writer's mode (see {@link FencedJdbcWriter.Builder#admitAtCommit})
   */
  public RegisterHarness(DataSource ds, boolean admitAtCommit) {
    this(ds, JdbcTestSchema.trustingWriter(ds, admitAtCommit));
  }

  @Override
  public io.leasehold.fencing.FenceGuard guard() {
    return writer;
  }

  @Override
  public void write(LeaseKey key, Fenced fenced, String value) {
    writer.write(
        fenced,
        (c, token) -> {
          setRegister(c, key, value);
          try (PreparedStatement ps =
              c.prepareStatement(
                  "INSERT INTO op_log (account_id, session_id, fence) VALUES (?, ?, ?)")) {
            ps.setString(1, key.accountId());
            ps.setString(2, key.sessionId());
            ps.setLong(3, token.fence());
            ps.executeUpdate();
          }
          return null;
        });
  }

  /** A write whose work changes the register, then throws {@code thrown}. */
  public void writeThrowing(
      LeaseKey key, io.leasehold.fencing.FencingToken token, Throwable thrown) {
    writer.write(
        token,
        (c, t) -> {
          setRegister(c, key, "thrown");
          throw io.leasehold.adapters.Sneaky.raise(thrown);
        });
  }

  /** Sets the key's register inside the caller's transaction. */
  static void setRegister(Connection c, LeaseKey key, String value) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "INSERT INTO register VALUES (?, ?, ?) ON CONFLICT (account_id, session_id)"
                + " DO UPDATE SET value = EXCLUDED.value")) {
      ps.setString(1, key.accountId());
      ps.setString(2, key.sessionId());
      ps.setString(3, value);
      ps.executeUpdate();
    }
  }

  @Override
  public Optional<String> value(LeaseKey key) {
    return query("SELECT value FROM register WHERE account_id = ? AND session_id = ?", key).stream()
        .findFirst();
  }

  @Override
  public GuardHarness reopen() {
    return new RegisterHarness(ds, builder);
  }

  @Override
  public List<Long> admittedFences(LeaseKey key) {
    return query(
            "SELECT fence::text FROM op_log WHERE account_id = ? AND session_id = ? ORDER BY seq",
            key)
        .stream()
        .map(Long::parseLong)
        .toList();
  }

  private List<String> query(String sql, LeaseKey key) {
    try (Connection c = ds.getConnection();
        PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setString(1, key.accountId());
      ps.setString(2, key.sessionId());
      List<String> out = new ArrayList<>();
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(rs.getString(1));
        }
      }
      return out;
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }
}
