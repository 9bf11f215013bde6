package io.leasehold.adapters.jdbc;

import io.leasehold.adapters.FencedResourceContract;
import io.leasehold.testkit.GuardHarness;
import io.leasehold.fencing.TokenVerifier;
import io.leasehold.testing.TestDatabaseExtension;
import javax.sql.DataSource;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The guard contract for the database writer, on real PostgreSQL. */
class JdbcWriterContractTest extends FencedResourceContract
    implements io.leasehold.testkit.CrossProcessGuardContract, io.leasehold.testkit.ThrownErrorContract, JdbcWriterBoundsContracts {
  @RegisterExtension static final TestDatabaseExtension db = JdbcTestSchema.extension();

  @Override
  public DataSource resourceDatabase() {
    return db.dataSource();
  }

  @Override
  public boolean admitsAtCommit() {
    return false;
  }

  @Override
  protected GuardHarness harness(TokenVerifier verifier) {
    return new RegisterHarness(db.dataSource(), FencedJdbcWriter.builder(db.dataSource()).verifier(verifier));
  }

  @Override
  public Class<? extends io.leasehold.testkit.GuardHarnessFactory> harnessFactory() {
    return io.leasehold.adapters.HarnessFactories.Jdbc.class;
  }

  @Override
  public String sharedStorage() {
    return db.database().jdbcUrl() + "\n" + db.database().server().user() + "\n" + db.database().server().password();
  }

  @Override
  public GuardHarness throwingHarness() {
    return new RegisterHarness(db.dataSource(), false);
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
        db.dataSource(), FencedJdbcWriter.builder(db.dataSource()).verifyAgainstLeaseTable("leasehold_lease"));
  }
}
