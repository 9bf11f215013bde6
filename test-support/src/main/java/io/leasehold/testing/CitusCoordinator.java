package io.leasehold.testing;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;

/**
 * A Citus coordinator named by {@value #URL_ENV}, for the tests that prove the SQL on a real
 * cluster (docs/scale-out.md). Without the variable those tests are skipped with {@link #HOW_TO}:
 * CI has no Citus, so they run by hand.
 *
 * <p>The tests share the one database of the URL (Citus does not propagate {@code CREATE
 * DATABASE}), so each test class starts from {@link #reset}: the tables and sequences of schema
 * {@code public} dropped, then its schema applied. Test classes run one at a time.
 */
public final class CitusCoordinator {
  /** Environment variable with the JDBC URL of a Citus coordinator's database. */
  public static final String URL_ENV = "LEASEHOLD_CITUS_URL";

  /** Environment variable with the user for {@link #URL_ENV}; default {@code postgres}. */
  public static final String USER_ENV = "LEASEHOLD_CITUS_USER";

  /** Environment variable with the password for {@link #URL_ENV}; default none. */
  public static final String PASSWORD_ENV = "LEASEHOLD_CITUS_PASSWORD";

  /**
   * The value of {@value PostgresServer#KIND_PROPERTY} that runs every test class registering a
   * {@link TestDatabaseExtension} on the coordinator: {@code -Dleasehold.test.db=citus} with
   * {@value #URL_ENV} set runs an existing suite there unchanged.
   */
  public static final String KIND = "citus";

  /** The one line a skipped test says. */
  public static final String HOW_TO =
      "Citus tests skipped: set "
          + URL_ENV
          + "=jdbc:postgresql://host:port/database (a Citus coordinator whose database has the citus"
          + " extension and its workers added; user and password in "
          + USER_ENV
          + " and "
          + PASSWORD_ENV
          + ") to run them, see docs/scale-out.md";

  private static final String RESET =
      "DO $body$ DECLARE r record; BEGIN"
          + " FOR r IN SELECT format('%I.%I', n.nspname, c.relname) AS name FROM pg_class c"
          + " JOIN pg_namespace n ON n.oid = c.relnamespace"
          + " WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p')"
          + " AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = c.oid AND d.deptype = 'e')"
          + " LOOP EXECUTE 'DROP TABLE IF EXISTS ' || r.name || ' CASCADE'; END LOOP;"
          + " FOR r IN SELECT format('%I.%I', n.nspname, c.relname) AS name FROM pg_class c"
          + " JOIN pg_namespace n ON n.oid = c.relnamespace"
          + " WHERE n.nspname = 'public' AND c.relkind = 'S'"
          + " AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = c.oid AND d.deptype = 'e')"
          + " LOOP EXECUTE 'DROP SEQUENCE IF EXISTS ' || r.name || ' CASCADE'; END LOOP; END $body$";

  private CitusCoordinator() {}

  /**
   * Whether {@value #URL_ENV} names a coordinator.
   *
   * @return true if the Citus tests can run
   */
  public static boolean configured() {
    String url = System.getenv(URL_ENV);
    return url != null && !url.isBlank();
  }

  /**
   * The coordinator's database, or the test is skipped with {@link #HOW_TO}.
   *
   * @return a database that is never dropped
   */
  public static TestDatabase database() {
    String url = TestEnvironment.required(URL_ENV, HOW_TO);
    PostgresServer server =
        PostgresServer.external(
            "Citus coordinator " + url,
            url,
            orDefault(System.getenv(USER_ENV), "postgres"),
            orDefault(System.getenv(PASSWORD_ENV), ""));
    String name = url.replaceFirst("^jdbc:postgresql://[^/]+/", "").replaceFirst("\\?.*$", "");
    return new TestDatabase(server, name, false);
  }

  /**
   * Drops every table and sequence of schema {@code public} that no extension owns (Citus drops a
   * distributed table's shards with it).
   *
   * @param dataSource the coordinator's database
   */
  public static void reset(DataSource dataSource) {
    try (Connection c = dataSource.getConnection();
        Statement s = c.createStatement()) {
      s.execute(RESET);
    } catch (SQLException e) {
      throw new IllegalStateException("could not reset the Citus test database: " + e, e);
    }
  }

  private static String orDefault(String value, String fallback) {
    return value == null || value.isEmpty() ? fallback : value;
  }
}
