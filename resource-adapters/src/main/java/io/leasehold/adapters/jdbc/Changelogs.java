package io.leasehold.adapters.jdbc;

import io.leasehold.adapters.ResourceAccessException;
import java.sql.Connection;
import java.util.Map;
import javax.sql.DataSource;
import liquibase.Scope;
import liquibase.UpdateSummaryOutputEnum;
import liquibase.changelog.ChangeLogParameters;
import liquibase.command.CommandScope;
import liquibase.command.core.UpdateCommandStep;
import liquibase.command.core.helpers.DatabaseChangelogCommandStep;
import liquibase.command.core.helpers.DbUrlConnectionArgumentsCommandStep;
import liquibase.command.core.helpers.ShowSummaryArgument;
import liquibase.database.Database;
import liquibase.database.DatabaseFactory;
import liquibase.database.jvm.JdbcConnection;
import liquibase.resource.ClassLoaderResourceAccessor;
import liquibase.ui.LoggerUIService;

/**
 * The one way the adapters apply their Liquibase changelogs: through the command API with a
 * logger-backed UI and LOG summaries (Liquibase would otherwise print to standard output), each
 * configuration with its own history table so several can live in one database. Support for the
 * schema classes; not an API of its own.
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
      DataSource dataSource, String changelog, String historyTable, Map<String, String> parameters, String what) {
    if (dataSource == null) {
      throw new IllegalArgumentException("dataSource must not be null");
    }
    try (Connection connection = dataSource.getConnection()) {
      Database database =
          DatabaseFactory.getInstance().findCorrectDatabaseImplementation(new JdbcConnection(connection));
      database.setDatabaseChangeLogTableName(historyTable);
      database.setDatabaseChangeLogLockTableName(historyTable + "_lock");
      ChangeLogParameters params = new ChangeLogParameters(database);
      parameters.forEach(params::set);
      Scope.child(
          Map.of(
              Scope.Attr.ui.name(), new LoggerUIService(),
              Scope.Attr.resourceAccessor.name(), new ClassLoaderResourceAccessor(Changelogs.class.getClassLoader())),
          () ->
              new CommandScope(UpdateCommandStep.COMMAND_NAME)
                  .addArgumentValue(UpdateCommandStep.CHANGELOG_FILE_ARG, changelog)
                  .addArgumentValue(DbUrlConnectionArgumentsCommandStep.DATABASE_ARG, database)
                  .addArgumentValue(DatabaseChangelogCommandStep.CHANGELOG_PARAMETERS, params)
                  .addArgumentValue(ShowSummaryArgument.SHOW_SUMMARY_OUTPUT, UpdateSummaryOutputEnum.LOG)
                  .execute());
    } catch (Exception e) {
      throw new ResourceAccessException("could not apply the " + what + ": " + e.getMessage(), e);
    }
  }
}
