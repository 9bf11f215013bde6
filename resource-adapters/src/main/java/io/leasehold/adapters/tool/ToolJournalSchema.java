package io.leasehold.adapters.tool;

import io.leasehold.adapters.internal.Changelogs;
import io.leasehold.adapters.internal.SqlNames;
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

  /**
   * The default names.
   *
   * @return the schema with prefix {@code leasehold_tool}
   */
  public static ToolJournalSchema defaults() {
    return new ToolJournalSchema(DEFAULT_PREFIX);
  }

  /**
   * Validates the prefix.
   *
   * @throws IllegalArgumentException if it is not a safe identifier
   */
  public ToolJournalSchema {
    SqlNames.identifier(prefix, "tool journal prefix");
  }

  /**
   * Creates or upgrades the tables; safe to call at every start.
   *
   * @param dataSource the database (the lease database or the resource database)
   * @throws io.leasehold.adapters.ResourceAccessException if the migration fails
   */
  public void apply(DataSource dataSource) {
    Changelogs.apply(dataSource, CHANGELOG, "leasehold.toolJournal", prefix, "tool journal schema");
  }
}
