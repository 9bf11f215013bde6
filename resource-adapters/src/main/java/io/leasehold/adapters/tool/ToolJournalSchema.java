package io.leasehold.adapters.tool;

import io.leasehold.adapters.internal.Changelogs;
import java.util.Map;
import java.util.regex.Pattern;
import javax.sql.DataSource;

/**
 * The tables of a {@link JdbcToolJournal}: {@code <prefix>_call}, {@code <prefix>_mark}, {@code
 * <prefix>_mark_reset} and the sequence {@code <prefix>_admission_seq}, created by the Liquibase
 * changelog {@value #CHANGELOG} (history in {@code <prefix>_changelog}).
 *
 * @param prefix the names' prefix: a lower-case identifier of at most 40 characters, default
 *     {@value #DEFAULT_PREFIX}
 */
public record ToolJournalSchema(String prefix) {
  /** Default prefix. */
  public static final String DEFAULT_PREFIX = "leasehold_tool";
  /** Class-path location of the changelog. */
  public static final String CHANGELOG = "META-INF/leasehold/adapters/tool-journal.changelog.xml";

  private static final Pattern IDENTIFIER = Pattern.compile("[a-z_][a-z0-9_]{0,39}");

  /**
   * Validates the prefix.
   *
   * @throws IllegalArgumentException if it is not a safe identifier
   */
  public ToolJournalSchema {
    if (prefix == null || !IDENTIFIER.matcher(prefix).matches()) {
      throw new IllegalArgumentException(
          "tool journal prefix '" + prefix + "' is not a lower-case SQL identifier of at most 40 characters");
    }
  }

  /**
   * The default names.
   *
   * @return the schema with prefix {@code leasehold_tool}
   */
  public static ToolJournalSchema defaults() {
    return new ToolJournalSchema(DEFAULT_PREFIX);
  }

  /**
   * Creates or upgrades the tables; safe to call at every start.
   *
   * @param dataSource the database (the lease database or the resource database)
   * @throws io.leasehold.adapters.ResourceAccessException if the migration fails
   */
  public void apply(DataSource dataSource) {
    Changelogs.apply(
        dataSource, CHANGELOG, prefix + "_changelog", Map.of("leasehold.toolJournal", prefix), "tool journal schema");
  }
}
