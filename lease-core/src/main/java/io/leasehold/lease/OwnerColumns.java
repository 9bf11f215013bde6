package io.leasehold.lease;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.UUID;

/**
 * Where a statement's row carries a lease row's run (the columns of a {@link LeaseOwner}), so that
 * each statement names its own column positions and the reading of the owner is written once: the
 * status and listing reads ({@link ReadStatements}) and the acquire's refusal ({@link
 * AcquireStatements}) select them in different orders.
 *
 * @param runId the run id's column
 * @param fence the fence's column
 * @param holder the holder's column
 * @param acquiredAt the acquisition time's column
 * @param expiresAt the expiry's column
 * @param releasedAt the release time's column (null in a row never released)
 */
record OwnerColumns(
    int runId, int fence, int holder, int acquiredAt, int expiresAt, int releasedAt) {

  /** The run recorded in the current row of {@code rs}. */
  LeaseOwner read(ResultSet rs) throws SQLException {
    return new LeaseOwner(
        rs.getObject(runId, UUID.class),
        rs.getLong(fence),
        rs.getString(holder),
        StatementRunner.instant(rs, acquiredAt),
        StatementRunner.instant(rs, expiresAt),
        StatementRunner.instantOrNull(rs, releasedAt));
  }
}
