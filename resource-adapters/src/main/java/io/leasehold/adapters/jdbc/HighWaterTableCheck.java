package io.leasehold.adapters.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Checks, once per writer, that the high-water table is the one the changelog made (CONTRACT C16):
 * a {@code text} fence column compares as text ("9" &gt; "10") and would admit a stale writer, and
 * a table without its primary key would let two marks of one key coexist. The check reads the
 * catalog for the schema-qualified name the writer uses, so a look-alike table earlier on the
 * {@code search_path} is never consulted.
 */
final class HighWaterTableCheck {
  private static final Map<String, String> EXPECTED = new LinkedHashMap<>();

  static {
    EXPECTED.put("account_id", "text");
    EXPECTED.put("session_id", "text");
    EXPECTED.put("fence", "bigint");
    EXPECTED.put("run_id", "uuid");
    EXPECTED.put("admitted_at", "timestamp with time zone");
  }

  private final String qualifiedTable;
  private volatile boolean passed;

  HighWaterTableCheck(String qualifiedTable) {
    this.qualifiedTable = qualifiedTable;
  }

  /** Passes once and is then free; a failure is checked again next time, after a repair. */
  void ensure(Connection c) throws SQLException {
    if (passed) {
      return;
    }
    List<String> problems = new ArrayList<>();
    Map<String, String> columns = new LinkedHashMap<>();
    // Columns of exactly this table; to_regclass gives null (no rows) if it does not exist.
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull FROM pg_attribute a"
                + " WHERE a.attrelid = to_regclass(?) AND a.attnum > 0 AND NOT a.attisdropped")) {
      ps.setString(1, qualifiedTable);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          columns.put(rs.getString(1), rs.getString(2));
          if (EXPECTED.containsKey(rs.getString(1)) && !rs.getBoolean(3)) {
            problems.add(rs.getString(1) + " may be null");
          }
        }
      }
    }
    if (columns.isEmpty()) {
      throw new SQLException(
          "the high-water table "
              + qualifiedTable
              + " does not exist: run HighWaterSchema.apply(dataSource) (or"
              + " its sqlScript()) on the resource database, or name the table's schema with"
              + " FencedJdbcWriter.Builder.databaseSchema",
          "42P01");
    }
    EXPECTED.forEach(
        (name, type) -> {
          String actual = columns.get(name);
          if (!type.equals(actual)) {
            problems.add(
                name + " is " + (actual == null ? "missing" : actual) + ", expected " + type);
          }
        });
    // The primary key on (account_id, session_id): one mark per key.
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT string_agg(a.attname, ',' ORDER BY a.attname) FROM pg_index i"
                + " JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey)"
                + " WHERE i.indrelid = to_regclass(?) AND i.indisprimary")) {
      ps.setString(1, qualifiedTable);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        if (!"account_id,session_id".equals(rs.getString(1))) {
          problems.add(
              "its primary key is (" + rs.getString(1) + "), expected (account_id, session_id)");
        }
      }
    }
    if (!problems.isEmpty()) {
      throw new SQLException(
          "the high-water table "
              + qualifiedTable
              + " is not the one HighWaterSchema creates ("
              + String.join("; ", problems)
              + "): every write is refused until it is. Move it aside and run HighWaterSchema.apply, then"
              + " restore its marks into the new table",
          "42804");
    }
    passed = true;
  }
}
