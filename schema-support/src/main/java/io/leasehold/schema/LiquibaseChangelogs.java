package io.leasehold.schema;

import java.sql.Connection;
import java.util.Map;
import java.util.function.BiFunction;
import java.util.logging.Level;
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
import liquibase.logging.LogService;
import liquibase.logging.Logger;
import liquibase.logging.core.AbstractLogService;
import liquibase.logging.core.JavaLogger;
import liquibase.resource.ClassLoaderResourceAccessor;
import liquibase.ui.LoggerUIService;

/**
 * The one way Leasehold's schema classes ({@code LeaseSchema}, {@code HighWaterSchema}, {@code
 * ToolJournalSchema}) apply their Liquibase changelogs. Support for them, not an API: it may change
 * in any release. Its module brings {@code liquibase-core} 4.x.
 *
 * <p>Quiet by default: Liquibase's own messages (about 125 lines per apply) go to the {@code
 * java.util.logging} logger {@value #LOGGER} at level {@code FINE}, warnings and errors at their
 * own level. To see the details, enable {@code FINE} for that logger (for example {@code
 * io.leasehold.schema.level = FINE} in {@code logging.properties}, or your logging bridge's
 * equivalent). Nothing global is changed: the routing holds only inside the apply.
 *
 * <p>Each configuration has its own history table, so several changelogs live in one database.
 */
public final class LiquibaseChangelogs {
  /** The logger Liquibase's messages go to during an apply. */
  public static final String LOGGER = "io.leasehold.schema";

  private LiquibaseChangelogs() {}

  /**
   * Applies a class-path changelog.
   *
   * @param dataSource the database
   * @param changelog the changelog's class-path location
   * @param historyTable the Liquibase history table ({@code <name>} and {@code <name>_lock})
   * @param parameters the changelog's parameters
   * @param loader where the changelog is found
   * @param failure turns a message and the cause into the caller's exception
   * @throws RuntimeException what {@code failure} makes, if the migration fails
   */
  public static void apply(
      DataSource dataSource,
      String changelog,
      String historyTable,
      Map<String, String> parameters,
      ClassLoader loader,
      BiFunction<String, Exception, RuntimeException> failure) {
    if (dataSource == null) {
      throw new IllegalArgumentException("dataSource must not be null");
    }
    try (Connection connection = dataSource.getConnection()) {
      // The command API with a logger-backed UI and LOG summaries (Liquibase would otherwise
      // print to standard output), and a log service that demotes its chatter to FINE, around
      // everything Liquibase does, finding the database included.
      Scope.child(
          Map.of(
              Scope.Attr.ui.name(), new LoggerUIService(),
              Scope.Attr.logService.name(), QUIET,
              Scope.Attr.resourceAccessor.name(), new ClassLoaderResourceAccessor(loader)),
          () -> {
            Database database =
                DatabaseFactory.getInstance()
                    .findCorrectDatabaseImplementation(new JdbcConnection(connection));
            database.setDatabaseChangeLogTableName(historyTable);
            database.setDatabaseChangeLogLockTableName(historyTable + "_lock");
            ChangeLogParameters params = new ChangeLogParameters(database);
            parameters.forEach(params::set);
            new CommandScope(UpdateCommandStep.COMMAND_NAME)
                .addArgumentValue(UpdateCommandStep.CHANGELOG_FILE_ARG, changelog)
                .addArgumentValue(DbUrlConnectionArgumentsCommandStep.DATABASE_ARG, database)
                .addArgumentValue(DatabaseChangelogCommandStep.CHANGELOG_PARAMETERS, params)
                .addArgumentValue(
                    ShowSummaryArgument.SHOW_SUMMARY_OUTPUT, UpdateSummaryOutputEnum.LOG)
                .execute();
          });
    } catch (Exception e) {
      throw failure.apply(e.getMessage() == null ? e.toString() : e.getMessage(), e);
    }
  }

  private static final LogService QUIET = new QuietLogService();

  /**
   * Liquibase's messages below WARNING, at FINE on {@link #LOGGER}. (Liquibase's interface takes a
   * raw {@code Class}, and its loggers are {@code AutoCloseable} with a broad {@code close()}.)
   */
  @SuppressWarnings({"rawtypes", "try"})
  private static final class QuietLogService extends AbstractLogService {
    private final java.util.logging.Logger jul = java.util.logging.Logger.getLogger(LOGGER);

    @Override
    public int getPriority() {
      return PRIORITY_SPECIALIZED;
    }

    @Override
    public Logger getLog(Class clazz) {
      return new JavaLogger(jul) {
        @Override
        public void log(Level level, String message, Throwable e) {
          super.log(level.intValue() >= Level.WARNING.intValue() ? level : Level.FINE, message, e);
        }
      };
    }
  }
}
