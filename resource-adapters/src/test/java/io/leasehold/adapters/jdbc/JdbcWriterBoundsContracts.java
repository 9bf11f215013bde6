package io.leasehold.adapters.jdbc;

import io.leasehold.adapters.TableRows;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.TokenVerifier;
import io.leasehold.testkit.AccountIsolationContract;
import io.leasehold.testkit.BoundedGrowthContract;
import io.leasehold.testkit.BoundedWaitContract;
import io.leasehold.testkit.GuardHarness;
import java.time.Duration;
import javax.sql.DataSource;

/**
 * The testkit's C19 and C21 contracts for the database writer, in both modes. C19's scope contract
 * does not apply: which rows the work touches is the application's SQL, which receives the admitted
 * token to filter by.
 */
interface JdbcWriterBoundsContracts
    extends AccountIsolationContract, BoundedGrowthContract, BoundedWaitContract {
  DataSource resourceDatabase();

  boolean admitsAtCommit();

  @Override
  default GuardHarness isolationHarness() {
    return new RegisterHarness(resourceDatabase(), admitsAtCommit());
  }

  @Override
  default GuardHarness growthHarness(TokenVerifier verifier) {
    return new RegisterHarness(
        resourceDatabase(),
        FencedJdbcWriter.builder(resourceDatabase())
            .verifier(verifier)
            .admitAtCommit(admitsAtCommit()));
  }

  @Override
  default long stateSize(GuardHarness harness) {
    return TableRows.total(resourceDatabase());
  }

  @Override
  default GuardHarness waitingHarness(Duration limit) {
    return new RegisterHarness(
        resourceDatabase(),
        FencedJdbcWriter.builder(resourceDatabase())
            .verifier(TokenVerifier.trustEveryWriter())
            .admitAtCommit(admitsAtCommit())
            .lockTimeout(limit));
  }

  /** Another transaction holds the key's mark row, as a writer stuck mid-transaction would. */
  @Override
  default AutoCloseable stickPeer(GuardHarness harness, LeaseKey key) throws Exception {
    return TableRows.holdRowLock(
        resourceDatabase(),
        "SELECT 1 FROM leasehold_high_water WHERE account_id = ? AND session_id = ? FOR UPDATE",
        key.accountId(),
        key.sessionId());
  }

  @Override
  default String awaitedName(GuardHarness harness, LeaseKey key) {
    return "the mark row of " + key;
  }
}
