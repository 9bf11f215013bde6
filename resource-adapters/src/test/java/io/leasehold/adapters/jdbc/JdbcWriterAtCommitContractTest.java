package io.leasehold.adapters.jdbc;

import io.leasehold.adapters.FencedResourceContract;
import io.leasehold.testkit.GuardHarness;
import io.leasehold.fencing.TokenVerifier;
import io.leasehold.testing.TestDatabaseExtension;
import javax.sql.DataSource;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The guard contract for the database writer that admits at commit. The harness's work first
 * updates the key's register row, so its row lock orders the writers' log entries as their
 * commits are ordered, which is what the contention test checks.
 */
class JdbcWriterAtCommitContractTest extends FencedResourceContract
    implements io.leasehold.testkit.CrossProcessGuardContract, io.leasehold.testkit.ThrownErrorContract, JdbcWriterBoundsContracts {
  @RegisterExtension static final TestDatabaseExtension db = JdbcTestSchema.extension();

  @Override
  public DataSource resourceDatabase() {
    return db.dataSource();
  }

  @Override
  public boolean admitsAtCommit() {
    return true;
  }

  @Override
  protected GuardHarness harness(TokenVerifier verifier) {
    return new RegisterHarness(
        db.dataSource(), FencedJdbcWriter.builder(db.dataSource()).verifier(verifier).admitAtCommit(true));
  }

  @Override
  public Class<? extends io.leasehold.testkit.GuardHarnessFactory> harnessFactory() {
    return io.leasehold.adapters.HarnessFactories.JdbcAtCommit.class;
  }

  @Override
  public String sharedStorage() {
    return db.database().jdbcUrl() + "\n" + db.database().server().user() + "\n" + db.database().server().password();
  }

  @Override
  public GuardHarness throwingHarness() {
    return new RegisterHarness(db.dataSource(), true);
  }

  @Override
  public void writeThrowing(GuardHarness harness, io.leasehold.fencing.LeaseKey key,
      io.leasehold.fencing.FencingToken token, Throwable thrown) {
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
        db.dataSource(),
        FencedJdbcWriter.builder(db.dataSource()).verifyAgainstLeaseTable("leasehold_lease").admitAtCommit(true));
  }
}
