package io.leasehold.adapters.jdbc;

import io.leasehold.adapters.ResourceAccessException;
import io.leasehold.adapters.internal.Changelogs;
import io.leasehold.adapters.internal.SqlNames;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import javax.sql.DataSource;

/**
 * The database writer's high-water table: one row per lease key with the highest fence admitted.
 * Created by the Liquibase changelog {@value #CHANGELOG} (history in {@code <table>_changelog}) or
 * by the same schema as plain SQL, {@link #sqlScript()}.
 *
 * @param table the table name: a lower-case identifier of at most 40 characters, default {@value
 *     #DEFAULT_TABLE}
 */
public record HighWaterSchema(String table) {
  /** Default table name. */
  public static final String DEFAULT_TABLE = "leasehold_high_water";

  /** Class-path location of the changelog. */
  public static final String CHANGELOG = "META-INF/leasehold/adapters/high-water.changelog.xml";

  /** Class-path location of the plain SQL schema (default name). */
  public static final String SQL_SCRIPT = "META-INF/leasehold/adapters/high-water-schema.sql";

  /**
   * Validates the name.
   *
   * @throws IllegalArgumentException if it is not a safe identifier
   */
  public HighWaterSchema {
    SqlNames.identifier(table, "high-water table name");
  }

  /**
   * The default name.
   *
   * @return {@code leasehold_high_water}
   */
  public static HighWaterSchema defaults() {
    return new HighWaterSchema(DEFAULT_TABLE);
  }

  /**
   * Creates or upgrades the table with the shipped changelog; safe to call at every start.
   *
   * @param dataSource the resource database
   * @throws ResourceAccessException if the migration fails
   */
  public void apply(DataSource dataSource) {
    Changelogs.apply(dataSource, CHANGELOG, "leasehold.highWaterTable", table, "high-water schema");
  }

  /**
   * The schema as plain SQL with this table name.
   *
   * @return the SQL
   */
  public String sqlScript() {
    try (InputStream in = HighWaterSchema.class.getClassLoader().getResourceAsStream(SQL_SCRIPT)) {
      if (in == null) {
        throw new IllegalStateException(SQL_SCRIPT + " is missing from the class path");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8).replace(DEFAULT_TABLE, table);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
