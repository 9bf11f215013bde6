package io.leasehold.lease;

import io.leasehold.fencing.internal.Arguments;
import io.leasehold.schema.LiquibaseChangelogs;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.regex.Pattern;
import javax.sql.DataSource;

/**
 * Names of the lease table and the fence sequence, and the means to create them.
 *
 * <p>Names are lower-case SQL identifiers ({@code [a-z_][a-z0-9_]*}, at most {@value
 * #MAX_NAME_LENGTH} characters, so that derived names such as {@code <table>_changelog_lock} stay
 * within PostgreSQL's 63), resolved through the connection's {@code search_path}. They are
 * validated here, so they can be placed in SQL text safely.
 *
 * <p>Two ways to create the schema, producing the same tables:
 *
 * <ul>
 *   <li>{@link #apply(DataSource)} runs the Liquibase changelog {@value #CHANGELOG} shipped in this
 *       jar; its history is kept in {@code <table>_changelog};
 *   <li>{@link #sqlScript()} returns the same schema as plain SQL ({@value #SQL_SCRIPT} rendered
 *       with these names), for users who migrate with another tool.
 * </ul>
 *
 * @param table the lease table, default {@value #DEFAULT_TABLE}
 * @param sequence the fence sequence, default {@value #DEFAULT_SEQUENCE}
 */
public record LeaseSchema(String table, String sequence) {
  /** Default lease table name. */
  public static final String DEFAULT_TABLE = "leasehold_lease";

  /** Default fence sequence name. */
  public static final String DEFAULT_SEQUENCE = "leasehold_fence_seq";

  /** Longest accepted table or sequence name. */
  public static final int MAX_NAME_LENGTH = 40;

  /** Class-path location of the Liquibase changelog. */
  public static final String CHANGELOG = "META-INF/leasehold/lease/db.changelog.xml";

  /** Class-path location of the plain SQL schema (default names). */
  public static final String SQL_SCRIPT = "META-INF/leasehold/lease/leasehold-schema.sql";

  private static final Pattern IDENTIFIER = Pattern.compile("[a-z_][a-z0-9_]*");

  /**
   * Validates both names.
   *
   * @throws IllegalArgumentException if a name is not a safe identifier or both are equal
   */
  public LeaseSchema {
    checkName("table", table);
    checkName("sequence", sequence);
    if (table.equals(sequence)) {
      throw new IllegalArgumentException("table and sequence names must differ");
    }
  }

  /**
   * The default names.
   *
   * @return {@code leasehold_lease} and {@code leasehold_fence_seq}
   */
  public static LeaseSchema defaults() {
    return new LeaseSchema(DEFAULT_TABLE, DEFAULT_SEQUENCE);
  }

  /** The call that applies this schema, for error messages that name the repair. */
  String describeApply() {
    return equals(defaults())
        ? "LeaseSchema.defaults().apply(dataSource)"
        : "new LeaseSchema(\"" + table + "\", \"" + sequence + "\").apply(dataSource)";
  }

  /**
   * Creates or upgrades the schema with the shipped Liquibase changelog. Safe to call on every
   * start: changesets already applied are skipped, and Liquibase's lock table keeps concurrent
   * callers apart. Quiet: Liquibase's messages go to the {@code java.util.logging} logger {@code
   * io.leasehold.schema} at level {@code FINE} (see {@link LiquibaseChangelogs}).
   *
   * @param dataSource a data source whose user may create tables
   * @throws LeaseStoreException if the migration fails
   */
  public void apply(DataSource dataSource) {
    Arguments.required(dataSource, "dataSource");
    LiquibaseChangelogs.apply(
        dataSource,
        CHANGELOG,
        table + "_changelog",
        Map.of("leasehold.table", table, "leasehold.sequence", sequence),
        LeaseSchema.class.getClassLoader(),
        (message, cause) ->
            new LeaseStoreException("could not apply the lease schema: " + message, cause));
  }

  /**
   * The schema as plain SQL with these names.
   *
   * @return SQL statements separated by semicolons
   */
  public String sqlScript() {
    String script;
    try (InputStream in = LeaseSchema.class.getClassLoader().getResourceAsStream(SQL_SCRIPT)) {
      if (in == null) {
        throw new IllegalStateException(SQL_SCRIPT + " is missing from the class path");
      }
      script = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return script.replace(DEFAULT_TABLE, table).replace(DEFAULT_SEQUENCE, sequence);
  }

  private static void checkName(String what, String name) {
    if (name == null) {
      throw new IllegalArgumentException(what + " name must not be null");
    }
    if (name.length() > MAX_NAME_LENGTH || !IDENTIFIER.matcher(name).matches()) {
      throw new IllegalArgumentException(
          what
              + " name '"
              + name
              + "' is not a lower-case SQL identifier ([a-z_][a-z0-9_]*, at most "
              + MAX_NAME_LENGTH
              + " characters)");
    }
  }
}
