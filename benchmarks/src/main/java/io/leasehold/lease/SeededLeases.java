package io.leasehold.lease;

import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import java.lang.reflect.Field;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * Benchmarks only: many live leases of one store made by one set-based statement per chunk instead
 * of one acquire each, so that a benchmark can renew a million leases on a cluster where a million
 * acquires take hours (group {@code ceiling}, {@code held=insert}).
 *
 * <p>Each chunk's rows are what the store's first acquire ({@link AcquireStatements#acquireNew})
 * writes for a key without a row: a fence drawn from the table's own sequence and above the fence
 * floor, a run id drawn in Java, the store's default holder, acquired and renewed at the
 * statement's time, expiring the store's TTL later. Each row becomes a {@link Lease} of the store
 * as its grant makes one: the same control (so {@link LeaseStore#renewAll} and the keeper treat it
 * as their own), the token signed as the store signs, the local deadline counted from before the
 * statement was sent. What a renewal then measures is the store's own renewal of its own leases;
 * only the way they came to be held differs.
 *
 * <p>Unlike granted leases, these are not registered for release when the store closes: closing
 * would otherwise release them one statement each. Their rows stay until the table is emptied.
 */
public final class SeededLeases {
  private SeededLeases() {}

  /**
   * Inserts live leases number {@code from} to {@code from + count - 1}, {@code chunk} rows per
   * statement, held by {@code store}: lease {@code i} is session {@code "s" + i} of account {@code
   * accountPrefix + (i % accounts)}, so that on Citus they spread over the shards (all of one
   * account's rows live in one shard).
   *
   * @param store the store that holds them; it must not have these keys in its table yet
   * @param dataSource the store's database
   * @return the leases, in order
   * @throws SQLException if a statement fails
   */
  public static List<Lease> seed(
      LeaseStore store,
      DataSource dataSource,
      String accountPrefix,
      int accounts,
      int from,
      int count,
      int chunk)
      throws SQLException {
    StoreParts parts = partsOf(store);
    // The acquire confirms the store draws from the table's own sequence before any fence.
    parts.fenceSource().confirm();
    LeaseSchema schema = store.schema();
    Duration ttl = store.ttl();
    String holder = parts.options().defaultHolder;
    String insert =
        "INSERT INTO "
            + schema.table()
            + " AS l (account_id, session_id, run_id, fence, holder,"
            + " acquired_at, renewed_at, expires_at, released_at, took_over) "
            + "SELECT k.account_id, k.session_id, k.run_id, GREATEST(nextval('"
            + schema.sequence()
            + "'), floor.fence + 1), ?, statement_timestamp(), statement_timestamp(),"
            + " statement_timestamp() + ? * interval '1 microsecond', NULL, false"
            + " FROM unnest(?::text[], ?::text[], ?::uuid[]) AS k(account_id, session_id, run_id),"
            + " (SELECT max(fence) AS fence FROM "
            + schema.table()
            + "_fence_floor) AS floor "
            + "RETURNING l.account_id, l.session_id, l.run_id, l.fence, l.acquired_at, l.expires_at";
    List<Lease> leases = new ArrayList<>(count);
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement(insert)) {
      for (int start = from; start < from + count; start += chunk) {
        int n = Math.min(chunk, from + count - start);
        String[] accountIds = new String[n];
        String[] sessions = new String[n];
        UUID[] runs = new UUID[n];
        for (int i = 0; i < n; i++) {
          accountIds[i] = accountPrefix + ((start + i) % accounts);
          sessions[i] = "s" + (start + i);
          runs[i] = UUID.randomUUID();
        }
        ps.setString(1, holder);
        ps.setLong(2, StatementRunner.micros(ttl));
        ps.setArray(3, c.createArrayOf("text", accountIds));
        ps.setArray(4, c.createArrayOf("text", sessions));
        ps.setArray(5, c.createArrayOf("uuid", runs));
        long sentAt = parts.grants().ticker().read();
        List<Lease> made = new ArrayList<>(n);
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            LeaseKey key = LeaseKey.of(rs.getString(1), rs.getString(2));
            FencingToken token =
                parts
                    .grants()
                    .signing()
                    .sign(
                        new FencingToken(key, rs.getLong(4), rs.getObject(3, UUID.class)),
                        StatementRunner.instant(rs, 5),
                        StatementRunner.instant(rs, 6));
            AcquireStatements.Granted granted =
                new AcquireStatements.Granted(
                    token.fence(),
                    StatementRunner.instant(rs, 5),
                    StatementRunner.instant(rs, 6),
                    false);
            made.add(
                new Lease(
                    parts.own(),
                    AcquireRequest.of(key, key.accountId()),
                    holder,
                    ttl,
                    token,
                    granted,
                    parts.own().deadlineFrom(sentAt, ttl, false)));
          }
        }
        if (made.size() != n) {
          throw new IllegalStateException("inserted " + made.size() + " of " + n + " leases");
        }
        // RETURNING gives no order: the caller gets its sessions in order.
        made.sort(
            java.util.Comparator.comparingInt(
                l -> Integer.parseInt(l.key().sessionId().substring(1))));
        leases.addAll(made);
      }
    }
    return leases;
  }

  /** The store's parts: its only field holding them is private, and this is a benchmark. */
  private static StoreParts partsOf(LeaseStore store) {
    try {
      Field f = LeaseStore.class.getDeclaredField("parts");
      f.setAccessible(true);
      return (StoreParts) f.get(store);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("the lease store's parts moved; update SeededLeases", e);
    }
  }
}
