package io.leasehold.adapters.jdbc;

import io.leasehold.adapters.FencedResourceContract;
import io.leasehold.adapters.HarnessFactories;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.TokenVerifier;
import io.leasehold.testing.TestDatabaseExtension;
import io.leasehold.testkit.CrossProcessGuardContract;
import io.leasehold.testkit.GuardHarness;
import io.leasehold.testkit.GuardHarnessFactory;
import io.leasehold.testkit.ThrownErrorContract;
import javax.sql.DataSource;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The guard contract for the database writer, on real PostgreSQL, with the admission as the
 * transaction's first statement; {@link JdbcWriterAtCommitContractTest} runs it again with the
 * admission at commit.
 */
class JdbcWriterContractTest extends FencedResourceContract
    implements CrossProcessGuardContract, ThrownErrorContract, JdbcWriterBoundsContracts {
  @RegisterExtension static final TestDatabaseExtension db = JdbcTestSchema.extension();

  @Override
  public DataSource resourceDatabase() {
    return db.dataSource();
  }

  @Override
  public boolean admitsAtCommit() {
    return false;
  }

  private FencedJdbcWriter.Builder writer() {
    return FencedJdbcWriter.builder(db.dataSource()).admitAtCommit(admitsAtCommit());
  }

  @Override
  protected GuardHarness harness(TokenVerifier verifier) {
    return new RegisterHarness(db.dataSource(), writer().verifier(verifier));
  }

  @Override
  public Class<? extends GuardHarnessFactory> harnessFactory() {
    return admitsAtCommit() ? HarnessFactories.JdbcAtCommit.class : HarnessFactories.Jdbc.class;
  }

  @Override
  public String sharedStorage() {
    return HarnessFactories.storage(db.database());
  }

  @Override
  public GuardHarness throwingHarness() {
    return new RegisterHarness(db.dataSource(), admitsAtCommit());
  }

  @Override
  public void writeThrowing(
      GuardHarness harness, LeaseKey key, FencingToken token, Throwable thrown) {
    ((RegisterHarness) harness).writeThrowing(key, token, thrown);
  }

  /** The lease table lives in the resource database: the writer checks it in its own statement. */
  @Override
  protected DataSource leaseDatabase() {
    return db.dataSource();
  }

  @Override
  protected GuardHarness onlineHarness() {
    return new RegisterHarness(
        db.dataSource(), writer().verifyAgainstLeaseTable("leasehold_lease"));
  }
}
