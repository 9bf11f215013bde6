package io.leasehold.devdb;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * A PostgreSQL server on this machine, for development, demos and tests: the real server binaries
 * (PostgreSQL 17) come from a Maven artifact, so nothing has to be installed and no Docker is
 * needed. It runs as a child process in its own temporary data directory, on a free port of
 * 127.0.0.1, and stops when closed, or when the JVM exits normally if it was not closed.
 *
 * <pre>{@code
 * try (LocalPostgres pg = LocalPostgres.start()) {
 *   LeaseSchema.defaults().apply(pg.dataSource());
 *   ...
 * }
 * }</pre>
 *
 * <p>By default it commits durably ({@code fsync} and {@code synchronous_commit} on), as PostgreSQL
 * runs in production: a lease's cost is mostly its commit, and measuring without it flatters. Test
 * suites may turn durability off with {@link Builder#durable(boolean)} for speed. Not for
 * production: the data directory is temporary unless one is given, and the superuser's password is
 * {@code postgres}. Thread-safe.
 */
public final class LocalPostgres implements AutoCloseable {
  private static final Pattern SETTING = Pattern.compile("[a-z_][a-z0-9_.]*");

  private final Path dataDirectory;
  private final boolean temporaryData;
  private final Map<String, String> settings;
  private final Thread stopAtExit;
  private int port;
  private EmbeddedPostgres server;
  private boolean closed;

  private LocalPostgres(Builder b) {
    this.settings = new LinkedHashMap<>(b.settings);
    this.port = b.port;
    try {
      if (b.dataDirectory != null) {
        this.dataDirectory = b.dataDirectory;
        this.temporaryData = false;
      } else {
        this.dataDirectory = Files.createTempDirectory("leasehold-postgres-");
        this.temporaryData = true;
      }
    } catch (IOException e) {
      throw new UncheckedIOException("could not create a data directory for PostgreSQL", e);
    }
    // In the root thread group: a hook created in a group that is destroyed before the JVM exits
    // (mvn exec:java destroys the group its main ran in) cannot start, and the server was left
    // running after 3 of 5 exec:java runs.
    this.stopAtExit =
        new Thread(rootThreadGroup(), this::stopAtJvmExit, "leasehold-local-postgres-stop");
    try {
      startServer();
    } catch (RuntimeException e) {
      if (temporaryData) {
        deleteDataDirectory(); // nothing of a server that never started stays behind
      }
      throw e;
    }
    // One hook of ours, not the library's: it also deletes a temporary data directory, and
    // close() withdraws it, so closed servers leave nothing registered behind.
    if (b.stopAtJvmExit) {
      Runtime.getRuntime().addShutdownHook(stopAtExit);
    }
  }

  private static ThreadGroup rootThreadGroup() {
    ThreadGroup g = Thread.currentThread().getThreadGroup();
    while (g.getParent() != null) {
      g = g.getParent();
    }
    return g;
  }

  private void stopAtJvmExit() {
    try {
      closeAndClean();
    } catch (RuntimeException e) {
      System.err.println("could not stop " + this + ": " + e.getMessage());
    }
  }

  /**
   * Starts a server with the defaults: durable commits, 300 connections, a free port.
   *
   * @return the running server; close it to stop it
   * @throws UncheckedIOException if the server cannot start (the message says why)
   */
  public static LocalPostgres start() {
    return builder().start();
  }

  /**
   * Starts a builder.
   *
   * @return a builder with the defaults
   */
  public static Builder builder() {
    return new Builder();
  }

  private void startServer() {
    EmbeddedPostgres.Builder b =
        EmbeddedPostgres.builder()
            .setDataDirectory(dataDirectory)
            // A restart keeps the data; a temporary directory is deleted at close (below).
            .setCleanDataDirectory(false)
            .setRegisterShutdownHook(false);
    settings.forEach(b::setServerConfig);
    if (port != 0) {
      b.setPort(port);
    }
    try {
      server = b.start();
    } catch (IOException e) {
      throw new UncheckedIOException(
          "could not start PostgreSQL in "
              + dataDirectory
              + " (is the port "
              + (port == 0 ? "" : port + " ")
              + "free, and the directory writable by this user?): "
              + e.getMessage(),
          e);
    }
    port = server.getPort();
  }

  /**
   * The JDBC URL of the {@code postgres} database.
   *
   * @return the URL
   */
  public String jdbcUrl() {
    return jdbcUrl("postgres");
  }

  /**
   * The JDBC URL of a database on this server.
   *
   * @param database the database's name
   * @return the URL
   */
  public String jdbcUrl(String database) {
    return "jdbc:postgresql://localhost:" + port + "/" + database;
  }

  /**
   * The superuser's name.
   *
   * @return {@code postgres}
   */
  public String user() {
    return "postgres";
  }

  /**
   * The superuser's password.
   *
   * @return {@code postgres}
   */
  public String password() {
    return "postgres";
  }

  /**
   * The port the server listens on.
   *
   * @return the port
   */
  public int port() {
    return port;
  }

  /**
   * An unpooled data source on the {@code postgres} database (each connection is new: give services
   * a pool).
   *
   * @return the data source
   */
  public DataSource dataSource() {
    PGSimpleDataSource ds = new PGSimpleDataSource();
    ds.setUrl(jdbcUrl());
    ds.setUser(user());
    ds.setPassword(password());
    return ds;
  }

  /**
   * Stops the server and starts it again on the same port and data: every connection drops, the
   * committed data stays. For tests of what clients do across a database restart.
   *
   * @throws IllegalStateException if it was closed
   * @throws UncheckedIOException if it cannot stop or start again
   */
  public synchronized void restart() {
    if (closed) {
      throw new IllegalStateException("this PostgreSQL was closed");
    }
    stopServer();
    startServer();
  }

  private void stopServer() {
    try {
      server.close();
    } catch (IOException e) {
      throw new UncheckedIOException("could not stop PostgreSQL in " + dataDirectory, e);
    }
  }

  /**
   * Stops the server and deletes its data directory if it was a temporary one. Idempotent.
   *
   * @throws UncheckedIOException if the server could not be stopped or its directory deleted
   */
  @Override
  public void close() {
    closeAndClean();
    try {
      Runtime.getRuntime().removeShutdownHook(stopAtExit);
    } catch (IllegalStateException e) {
      // The JVM is already exiting: the hook runs (or ran) and finds the server closed.
    }
  }

  private synchronized void closeAndClean() {
    if (closed) {
      return;
    }
    closed = true;
    stopServer();
    if (temporaryData) {
      deleteDataDirectory();
    }
  }

  private void deleteDataDirectory() {
    if (!Files.exists(dataDirectory)) {
      return;
    }
    try (var paths = Files.walk(dataDirectory)) {
      for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("could not delete the data directory " + dataDirectory, e);
    }
  }

  @Override
  public String toString() {
    return "local PostgreSQL on port " + port;
  }

  /** Options of a {@link LocalPostgres}. Not thread-safe. */
  public static final class Builder {
    private final Map<String, String> settings = new LinkedHashMap<>();
    private Path dataDirectory;
    private int port;
    private boolean stopAtJvmExit = true;

    private Builder() {
      durable(true);
      settings.put("max_connections", "300");
    }

    /**
     * Whether commits are durable: {@code fsync}, {@code synchronous_commit} and {@code
     * full_page_writes} on (the default, as in production) or all three off (faster, for test
     * suites; a crash of the machine may lose or corrupt data).
     *
     * @param durable true for durable commits
     * @return this builder
     */
    public Builder durable(boolean durable) {
      String v = durable ? "on" : "off";
      settings.put("fsync", v);
      settings.put("synchronous_commit", v);
      settings.put("full_page_writes", v);
      return this;
    }

    /**
     * Any server setting, as in {@code postgresql.conf}. Default {@code max_connections} is 300.
     *
     * @param name the setting's name, lower case
     * @param value its value
     * @return this builder
     * @throws IllegalArgumentException if the name is not a setting name or a value is missing
     */
    public Builder setting(String name, String value) {
      if (name == null || !SETTING.matcher(name).matches()) {
        throw new IllegalArgumentException("not a PostgreSQL setting name: " + name);
      }
      if (value == null) {
        throw new IllegalArgumentException("value of " + name + " must not be null");
      }
      settings.put(name, value);
      return this;
    }

    /**
     * A data directory to keep (by default a temporary one, deleted at close). PostgreSQL creates
     * and initializes it if it does not exist.
     *
     * @param directory the directory
     * @return this builder
     */
    public Builder dataDirectory(Path directory) {
      if (directory == null) {
        throw new IllegalArgumentException("directory must not be null");
      }
      this.dataDirectory = directory;
      return this;
    }

    /**
     * The port (by default a free one).
     *
     * @param port between 1024 and 65535
     * @return this builder
     */
    public Builder port(int port) {
      if (port < 1024 || port > 65535) {
        throw new IllegalArgumentException("port must be between 1024 and 65535, was " + port);
      }
      this.port = port;
      return this;
    }

    /**
     * Whether the server stops (and a temporary data directory is deleted) when the JVM exits
     * without {@link LocalPostgres#close()} (default true). Shutdown hooks run in no order, so an
     * application that closes its clients in a hook of its own, and the server after them, turns
     * this off and closes the server in that hook; otherwise the server may stop under clients
     * still closing.
     *
     * @param stop false to leave stopping the server to the application's own hook
     * @return this builder
     */
    public Builder stopAtJvmExit(boolean stop) {
      this.stopAtJvmExit = stop;
      return this;
    }

    /**
     * Starts the server.
     *
     * @return the running server; close it to stop it
     * @throws UncheckedIOException if the server cannot start
     */
    public LocalPostgres start() {
      return new LocalPostgres(this);
    }
  }
}
