package io.leasehold.testing;

import io.leasehold.devdb.LocalPostgres;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.regex.Pattern;
import javax.sql.DataSource;

/**
 * One PostgreSQL server for the whole test JVM, and the databases created on it.
 *
 * <p>Thread-safe: test classes may create databases in parallel.
 */
public final class PostgresServer {
  /** Environment variable with a JDBC URL of an external server (any database on it). */
  public static final String URL_ENV = "LEASEHOLD_TEST_JDBC_URL";

  /** Environment variable with the user for {@link #URL_ENV}. */
  public static final String USER_ENV = "LEASEHOLD_TEST_JDBC_USER";

  /** Environment variable with the password for {@link #URL_ENV}. */
  public static final String PASSWORD_ENV = "LEASEHOLD_TEST_JDBC_PASSWORD";

  /**
   * System property choosing the server kind: {@code embedded} (default) or {@code testcontainers}.
   */
  public static final String KIND_PROPERTY = "leasehold.test.db";

  private static final Pattern NAME = Pattern.compile("[a-z][a-z0-9_]{0,62}");
  private static final Pattern URL = Pattern.compile("(jdbc:postgresql://[^/?]+/)([^?]*)(\\?.*)?");

  private static volatile PostgresServer shared;

  private final String description;
  private final String urlPrefix;
  private final String urlSuffix;
  private final String user;
  private final String password;
  private final String adminDatabase;
  private final AtomicInteger counter = new AtomicInteger();
  private final Map<String, Object> templates = new ConcurrentHashMap<>();
  private final String runPrefix = "lh" + Long.toString(ProcessHandle.current().pid(), 36) + "_";

  private PostgresServer(String description, String jdbcUrl, String user, String password) {
    var m = URL.matcher(jdbcUrl);
    if (!m.matches()) {
      throw new IllegalArgumentException(
          "expected a URL of the form jdbc:postgresql://host:port/database, got " + jdbcUrl);
    }
    this.description = description;
    this.urlPrefix = m.group(1);
    this.adminDatabase = m.group(2).isEmpty() ? "postgres" : m.group(2);
    this.urlSuffix = m.group(3) == null ? "" : m.group(3);
    this.user = user;
    this.password = password;
  }

  /**
   * The server of this JVM, started or connected on first call.
   *
   * @return the shared server
   */
  public static PostgresServer shared() {
    PostgresServer s = shared;
    if (s == null) {
      synchronized (PostgresServer.class) {
        s = shared;
        if (s == null) {
          s = start();
          shared = s;
        }
      }
    }
    return s;
  }

  private static PostgresServer start() {
    String url = System.getenv(URL_ENV);
    if (url != null && !url.isBlank()) {
      return new PostgresServer(
          "external server " + url,
          url,
          orDefault(System.getenv(USER_ENV), "postgres"),
          orDefault(System.getenv(PASSWORD_ENV), ""));
    }
    String kind = System.getProperty(KIND_PROPERTY, "embedded");
    switch (kind) {
      case "embedded":
        return startEmbedded();
      case "testcontainers":
        return TestcontainersServer.start();
      default:
        throw new IllegalStateException(
            KIND_PROPERTY + " must be 'embedded' or 'testcontainers', was '" + kind + "'");
    }
  }

  private static PostgresServer startEmbedded() {
    // Tests trade durability for speed (no fsync); it stops when the test JVM exits.
    LocalPostgres pg = LocalPostgres.builder().durable(false).start();
    return new PostgresServer("embedded " + pg, pg.jdbcUrl(), pg.user(), pg.password());
  }

  static PostgresServer external(String description, String url, String user, String password) {
    return new PostgresServer(description, url, user, password);
  }

  private static String orDefault(String value, String fallback) {
    return value == null || value.isEmpty() ? fallback : value;
  }

  /**
   * What this server is, for log lines.
   *
   * @return a description
   */
  public String description() {
    return description;
  }

  /**
   * JDBC URL of a database on this server.
   *
   * @param database the database name
   * @return the URL
   */
  public String jdbcUrl(String database) {
    return urlPrefix + database + urlSuffix;
  }

  /**
   * The user tests connect as.
   *
   * @return the user name
   */
  public String user() {
    return user;
  }

  /**
   * The password tests connect with.
   *
   * @return the password
   */
  public String password() {
    return password;
  }

  /**
   * Creates a fresh, empty database, or a copy of a template prepared once per JVM.
   *
   * @param templateName null for an empty database, else a name (lower-case identifier) under which
   *     {@code initializer} prepares a template the first time it is asked for
   * @param initializer applies the schema to the template's data source; ignored when the template
   *     already exists
   * @return the new database; close it to drop it
   */
  public TestDatabase createDatabase(String templateName, Consumer<DataSource> initializer) {
    String template = "template0";
    if (templateName != null) {
      checkName(templateName);
      template = runPrefix + "tpl_" + templateName;
      ensureTemplate(template, initializer);
    }
    String name = runPrefix + counter.incrementAndGet();
    execAdmin("CREATE DATABASE " + name + " TEMPLATE " + template);
    return new TestDatabase(this, name, true);
  }

  private void ensureTemplate(String template, Consumer<DataSource> initializer) {
    Object lock = templates.computeIfAbsent(template, t -> new Object());
    synchronized (lock) {
      if (Boolean.TRUE.equals(templates.get(template + "#ready"))) {
        return;
      }
      execAdmin("DROP DATABASE IF EXISTS " + template);
      execAdmin("CREATE DATABASE " + template + " TEMPLATE template0");
      // The template's connections must all be closed before it can be copied.
      try (TestDatabase db = new TestDatabase(this, template, false)) {
        initializer.accept(db.dataSource());
      }
      templates.put(template + "#ready", Boolean.TRUE);
    }
  }

  void dropDatabase(String name) {
    execAdmin("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
  }

  /**
   * Opens a connection to the server's administrative database.
   *
   * @return a new connection; the caller closes it
   * @throws SQLException if the server cannot be reached
   */
  public Connection adminConnection() throws SQLException {
    return DriverManager.getConnection(jdbcUrl(adminDatabase), user, password);
  }

  private void execAdmin(String sql) {
    try (Connection c = adminConnection();
        Statement s = c.createStatement()) {
      s.execute(sql);
    } catch (SQLException e) {
      throw new IllegalStateException("'" + sql + "' failed on " + description, e);
    }
  }

  private static void checkName(String name) {
    if (!NAME.matcher(name).matches()) {
      throw new IllegalArgumentException("not a lower-case SQL identifier: " + name);
    }
  }
}
