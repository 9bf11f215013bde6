package io.leasehold.adapters;

import io.leasehold.adapters.file.FileHarness;
import io.leasehold.adapters.jdbc.RegisterHarness;
import io.leasehold.adapters.tool.ToolHarness;
import io.leasehold.testing.TestDatabase;
import io.leasehold.testkit.GuardHarness;
import io.leasehold.testkit.GuardHarnessFactory;
import java.nio.file.Path;
import java.util.concurrent.ConcurrentHashMap;
import javax.sql.DataSource;

/** How a child JVM opens each adapter on shared storage (CrossProcessGuardContract). */
public final class HarnessFactories {
  private HarnessFactories() {}

  /** A database as shared storage, {@code url\nuser\npassword}, read by {@link #dataSource}. */
  public static String storage(TestDatabase database) {
    return database.jdbcUrl()
        + "\n"
        + database.server().user()
        + "\n"
        + database.server().password();
  }

  /** Storage {@code url\nuser\npassword} as a data source. */
  public static DataSource dataSource(String storage) {
    String[] p = storage.split("\n", -1);
    return TestDatabase.connect(p[0], p[1], p[2]);
  }

  /** The file store on a root directory. */
  public static final class Files implements GuardHarnessFactory {
    @Override
    public GuardHarness open(String storage) {
      return new FileHarness(Path.of(storage));
    }
  }

  /** The tool executor on a journal file. */
  public static final class ToolFile implements GuardHarnessFactory {
    @Override
    public GuardHarness open(String storage) {
      return new ToolHarness(Path.of(storage), new ConcurrentHashMap<>());
    }
  }

  /** The database writer, admission first. */
  public static final class Jdbc implements GuardHarnessFactory {
    @Override
    public GuardHarness open(String storage) {
      return new RegisterHarness(dataSource(storage));
    }
  }

  /** The database writer, admission at commit. */
  public static final class JdbcAtCommit implements GuardHarnessFactory {
    @Override
    public GuardHarness open(String storage) {
      return new RegisterHarness(dataSource(storage), true);
    }
  }
}
