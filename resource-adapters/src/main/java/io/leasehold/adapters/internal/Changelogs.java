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
   * Applies a class-path changelog.
   *
   * @param dataSource the database
   * @param changelog the changelog's class-path location
   * @param historyTable the Liquibase history table ({@code <name>} and {@code <name>_lock})
   * @param parameters the changelog's parameters
   * @param what what is applied, for the error message
   * @throws ResourceAccessException if the migration fails
   */
  public static void apply(
      DataSource dataSource,
      String changelog,
      String historyTable,
      Map<String, String> parameters,
      String what) {
    LiquibaseChangelogs.apply(
        dataSource,
        changelog,
        historyTable,
        parameters,
        Changelogs.class.getClassLoader(),
        (message, cause) ->
            new ResourceAccessException("could not apply the " + what + ": " + message, cause));
  }
}
