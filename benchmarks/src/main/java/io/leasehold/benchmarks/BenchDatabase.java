package io.leasehold.benchmarks;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.leasehold.devdb.LocalPostgres;
import io.leasehold.lease.AccessPolicy;
import io.leasehold.lease.LeaseStore;
import io.leasehold.lease.LeaseStoreBuilder;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import javax.sql.DataSource;

/** The one PostgreSQL instance every benchmark runs on: embedded by default, or external. */
final class BenchDatabase implements AutoCloseable {
  private final LocalPostgres embedded;
  final String url;
  final String user;
  final String password;
  final int port;
  private final List<AutoCloseable> opened = new ArrayList<>();

  BenchDatabase(Optional<String> jdbcUrl) {
    this(jdbcUrl, Optional.empty());
  }

  /**
   * @param dataDirectory where the embedded server keeps its data (a tmpfs directory for the
   *     fast-flush regime), or empty for the default under the build directory
   */
  BenchDatabase(Optional<String> jdbcUrl, Optional<java.nio.file.Path> dataDirectory) {
    if (jdbcUrl.isPresent()) {
      embedded = null;
      url = jdbcUrl.get();
      user = System.getenv().getOrDefault("LEASEHOLD_TEST_JDBC_USER", "postgres");
      password = System.getenv().getOrDefault("LEASEHOLD_TEST_JDBC_PASSWORD", "");
      port = -1;
      if (url.contains("//localhost:") || url.contains("//127.0.0.1:")) {
        // A server on this machine: its processes' CPU time can be read as the embedded one's.
        Throughput.useCpuClock(ServerCpu.of(this));
      }
    } else {
      // One instance serves every competitor; its settings are printed with the results.
      // Durable commits (fsync, synchronous_commit on), as users run PostgreSQL: turned off,
      // they hide the commit cost that is most of a lease's cost.
      LocalPostgres.Builder b = LocalPostgres.builder();
      dataDirectory.ifPresent(b::dataDirectory);
      embedded = b.start();
      port = embedded.port();
      url = embedded.jdbcUrl();
      user = embedded.user();
      password = embedded.password();
      Throughput.useCpuClock(ServerCpu.of(this));
    }
  }

  /** The file system the embedded server's data lives on (tmpfs or not), for the report. */
  String storage() {
    try (Connection c = connection();
        java.sql.Statement s = c.createStatement();
        java.sql.ResultSet rs = s.executeQuery("SELECT current_setting('data_directory')")) {
      rs.next();
      java.nio.file.Path dir = java.nio.file.Path.of(rs.getString(1));
      return java.nio.file.Files.getFileStore(dir).type() + " (" + dir + ")";
    } catch (SQLException | java.io.IOException e) {
      // A server on another machine, or a data directory this user may not read.
      return (embedded == null ? "an external server, " : "") + "unknown (" + e + ")";
    }
  }

  Connection connection() throws SQLException {
    Connection c = DriverManager.getConnection(url, user, password);
    synchronized (opened) {
      opened.add(c);
    }
    return c;
  }

  HikariDataSource pool(int size) {
    HikariConfig c = new HikariConfig();
    c.setJdbcUrl(url);
    c.setUsername(user);
    c.setPassword(password);
    c.setMaximumPoolSize(size);
    c.setMinimumIdle(size);
    HikariDataSource ds = new HikariDataSource(c);
    synchronized (opened) {
      opened.add(ds);
    }
    return ds;
  }

  /**
   * A HikariCP pool with HikariCP's defaults (ten connections), as the README's example builds it:
   * URL, user and password, nothing else; the driver's sockets made by {@code socketFactory} (a
   * counting factory changes nothing the database sees).
   */
  HikariDataSource defaultPool(Class<? extends javax.net.SocketFactory> socketFactory) {
    HikariDataSource ds = new HikariDataSource();
    ds.setJdbcUrl(
        url + (url.contains("?") ? "&" : "?") + "socketFactory=" + socketFactory.getName());
    ds.setUsername(user);
    ds.setPassword(password);
    synchronized (opened) {
      opened.add(ds);
    }
    return ds;
  }

  /** Closes {@code c} with the pools and connections, before them (it was made after them). */
  void onClose(AutoCloseable c) {
    synchronized (opened) {
      opened.add(c);
    }
  }

  /**
   * Closes every pool and connection opened so far, the newest first (between benchmarks, to free
   * connections).
   *
   * @throws IllegalStateException if one could not be closed (after trying all of them)
   */
  void closeOpened() {
    IllegalStateException failed = null;
    synchronized (opened) {
      List<AutoCloseable> newestFirst = new ArrayList<>(opened);
      java.util.Collections.reverse(newestFirst);
      for (AutoCloseable c : newestFirst) {
        try {
          c.close();
        } catch (Exception e) {
          if (failed == null) {
            failed = new IllegalStateException("could not close a benchmark connection or pool", e);
          } else {
            failed.addSuppressed(e);
          }
        }
      }
      opened.clear();
    }
    if (failed != null) {
      throw failed;
    }
  }

  @Override
  public void close() {
    closeOpened();
    if (embedded != null) {
      embedded.close();
    }
  }

  /**
   * A builder for a benchmark's store: any caller may take any key (no benchmark measures an access
   * policy), and leases last {@code ttl}; the caller adds what it compares.
   */
  static LeaseStoreBuilder storeBuilder(DataSource pool, Duration ttl) {
    return LeaseStore.builder(pool).accessPolicy(AccessPolicy.allowAll()).ttl(ttl);
  }
}
