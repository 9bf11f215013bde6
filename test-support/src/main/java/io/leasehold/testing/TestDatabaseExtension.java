package io.leasehold.testing;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import javax.sql.DataSource;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Gives a test class a fresh database of its own, created before its first test and dropped after
 * its last. Register it on a static field:
 *
 * <pre>{@code
 * @RegisterExtension
 * static final TestDatabaseExtension db =
 *     TestDatabaseExtension.withTemplate("lease", ds -> LeaseSchema.defaults().apply(ds));
 * }</pre>
 *
 * <p>With a template, the schema is applied once per JVM to a template database and each class gets
 * a copy ({@code CREATE DATABASE ... TEMPLATE}), which is much faster than migrating anew.
 */
public final class TestDatabaseExtension
    implements BeforeAllCallback, BeforeEachCallback, AfterAllCallback {
  private static final ExtensionContext.Namespace RESETS =
      ExtensionContext.Namespace.create(TestDatabaseExtension.class, "citus-reset");

  private final String templateName;
  private final Consumer<DataSource> initializer;
  private final boolean citus;
  private volatile TestDatabase database;
  private volatile boolean skipped;

  private TestDatabaseExtension(String templateName, Consumer<DataSource> initializer) {
    this(templateName, initializer, false);
  }

  private TestDatabaseExtension(
      String templateName, Consumer<DataSource> initializer, boolean citus) {
    this.templateName = templateName;
    this.initializer = initializer;
    this.citus = citus;
  }

  /**
   * An extension on the Citus coordinator named by {@value CitusCoordinator#URL_ENV}: its database,
   * reset and then given the schema before the class's first test, and kept after its last; the
   * class is skipped with one line when the variable is not set ({@link CitusCoordinator}).
   *
   * @param initializer applies the schema (on Citus: distributed by the changelogs)
   * @return the extension
   */
  public static TestDatabaseExtension citus(Consumer<DataSource> initializer) {
    if (initializer == null) {
      throw new IllegalArgumentException("initializer is required");
    }
    return new TestDatabaseExtension(null, initializer, true);
  }

  /**
   * An extension whose databases start empty.
   *
   * @return the extension
   */
  public static TestDatabaseExtension empty() {
    return new TestDatabaseExtension(null, ds -> {});
  }

  /**
   * An extension whose databases are copies of a template prepared once per JVM.
   *
   * @param templateName a lower-case identifier naming the template
   * @param initializer applies the schema to the template
   * @return the extension
   */
  public static TestDatabaseExtension withTemplate(
      String templateName, Consumer<DataSource> initializer) {
    if (templateName == null || initializer == null) {
      throw new IllegalArgumentException("templateName and initializer are required");
    }
    return new TestDatabaseExtension(templateName, initializer);
  }

  /**
   * An extension whose databases are copies of a template with these schemas, applied once per JVM
   * in the order given.
   *
   * @param templateName a lower-case identifier naming the template
   * @param schemas each applies one schema, for example {@code LeaseSchema.defaults()::apply}
   * @return the extension
   */
  @SafeVarargs
  public static TestDatabaseExtension withSchemas(
      String templateName, Consumer<DataSource>... schemas) {
    List<Consumer<DataSource>> inOrder = new ArrayList<>();
    for (Consumer<DataSource> schema : schemas) {
      inOrder.add(schema);
    }
    return withTemplate(
        templateName,
        ds -> {
          for (Consumer<DataSource> schema : inOrder) {
            schema.accept(ds);
          }
        });
  }

  @Override
  public void beforeAll(ExtensionContext context) {
    if (citus || CitusCoordinator.KIND.equals(System.getProperty(PostgresServer.KIND_PROPERTY))) {
      if (!CitusCoordinator.configured()) {
        // Each test is then skipped with the line (beforeEach): surefire reports a class skipped
        // in beforeAll as no tests at all, and drops the reason.
        skipped = true;
        System.err.println(context.getDisplayName() + ": " + CitusCoordinator.HOW_TO);
        return;
      }
      TestDatabase db = CitusCoordinator.database();
      database = db;
      // Once per class: a class with two extensions (its own database and its superclass's lease
      // database) gets the coordinator's one database twice, and a second reset would drop the
      // schema the first one applied.
      ExtensionContext.Store resets = context.getStore(RESETS);
      if (resets.get(context.getRequiredTestClass()) == null) {
        resets.put(context.getRequiredTestClass(), true);
        CitusCoordinator.reset(db.dataSource());
      }
      initializer.accept(db.dataSource());
      return;
    }
    database = PostgresServer.shared().createDatabase(templateName, initializer);
  }

  @Override
  public void beforeEach(ExtensionContext context) {
    Assumptions.assumeFalse(skipped, CitusCoordinator.HOW_TO);
  }

  @Override
  public void afterAll(ExtensionContext context) {
    TestDatabase db = database;
    database = null;
    if (db != null) {
      db.close();
    }
  }

  /**
   * The class's database.
   *
   * @return the database
   * @throws IllegalStateException outside the test class's lifetime
   */
  public TestDatabase database() {
    TestDatabase db = database;
    if (db == null) {
      throw new IllegalStateException("the database exists only while the test class runs");
    }
    return db;
  }

  /**
   * Shorthand for {@code database().dataSource()}.
   *
   * @return the class database's pooled data source
   */
  public DataSource dataSource() {
    return database().dataSource();
  }
}
