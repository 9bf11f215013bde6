package io.leasehold.adapters.tool;

import io.leasehold.adapters.HarnessFactories;
import io.leasehold.fencing.TokenVerifier;
import io.leasehold.testkit.GuardHarness;
import io.leasehold.testkit.GuardHarnessFactory;
import java.util.concurrent.ConcurrentHashMap;

/** The tool executor on the PostgreSQL journal, opened in a child JVM. */
public final class JdbcToolHarnessFactory implements GuardHarnessFactory {
  @Override
  public GuardHarness open(String storage) {
    return new JdbcToolHarness(
        HarnessFactories.dataSource(storage),
        new ConcurrentHashMap<>(),
        TokenVerifier.trustEveryWriter());
  }
}
