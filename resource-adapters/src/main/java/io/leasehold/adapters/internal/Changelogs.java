package io.leasehold.adapters.internal;

import io.leasehold.adapters.ResourceAccessException;
import io.leasehold.schema.LiquibaseChangelogs;
import java.util.Map;
import javax.sql.DataSource;

/**
 * How the adapters' schema classes apply their Liquibase changelogs: the shared, quiet way (see
 * {@link LiquibaseChangelogs}), with the adapters' exception. Support for the schema classes; not
 * an API of its own.
 */
public final class Changelogs {
  private Changelogs() {}

  /**
   * Applies a class-path changelog whose one parameter is the name its tables are called after; its
   * Liquibase history is kept in {@code <name>_changelog} (and {@code <name>_changelog_lock}).
   *
   * @param dataSource the database
   * @param changelog the changelog's class-path location
   * @param parameter the name of the changelog's parameter
   * @param name the validated table name or prefix
   * @param what what is applied, for the error message
   * @throws ResourceAccessException if the migration fails
   */
  public static void apply(
      DataSource dataSource, String changelog, String parameter, String name, String what) {
    LiquibaseChangelogs.apply(
        dataSource,
        changelog,
        name + "_changelog",
        Map.of(parameter, name),
        Changelogs.class.getClassLoader(),
        (message, cause) ->
            new ResourceAccessException("could not apply the " + what + ": " + message, cause));
  }
}
