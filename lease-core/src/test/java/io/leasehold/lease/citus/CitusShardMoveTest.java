package io.leasehold.lease.citus;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.fencing.LeaseKey;
import io.leasehold.lease.AccessPolicy;
import io.leasehold.lease.AcquireResult;
import io.leasehold.lease.Lease;
import io.leasehold.lease.LeaseSchema;
import io.leasehold.lease.LeaseStore;
import io.leasehold.lease.LeaseStoreException;
import io.leasehold.lease.support.LeaseDatabase;
import io.leasehold.lease.support.StatusPolling;
import io.leasehold.testing.Contenders;
import io.leasehold.testing.Sql;
import io.leasehold.testing.TestDatabaseExtension;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * CONTRACT C1 and C3 while Citus moves the shard that holds a live key to the other worker ({@code
 * citus_move_shard_placement}, logical replication, writes go on during the copy): runs on four
 * threads hand the key around throughout, no two ever hold it at once, its fences only rise, and
 * the longest pause between two answers is printed. Runs on the coordinator named by {@code
 * LEASEHOLD_CITUS_URL}, skipped without it (docs/scale-out.md).
 */
class CitusShardMoveTest {
  @RegisterExtension
  static final TestDatabaseExtension db =
      TestDatabaseExtension.citus(ds -> LeaseSchema.defaults().apply(ds));

  private static final LeaseKey KEY = LeaseKey.of("moving-account", "moving-session");
  private static final int THREADS = 4;
  private static final Duration TTL = Duration.ofSeconds(5);

  @Test
  void aKeyHandedAroundWhileItsShardMovesIsNeverHeldTwiceAndItsFencesOnlyRise() throws Exception {
    try (LeaseStore store = LeaseDatabase.store(db, AccessPolicy.allowAll(), TTL)) {
      acquireOnce(store).release(); // the key has a row on its shard from here on
      Placement from = placementOf(KEY.accountId());
      String[] to = otherWorker(from);

      AtomicReference<UUID> holder = new AtomicReference<>();
      AtomicLong lastFence = new AtomicLong();
      AtomicInteger grants = new AtomicInteger();
      AtomicInteger busy = new AtomicInteger();
      AtomicInteger errors = new AtomicInteger();
      AtomicReference<String> firstError = new AtomicReference<>();
      List<String> violations = java.util.Collections.synchronizedList(new ArrayList<>());
      AtomicLong lastAnswer = new AtomicLong(System.nanoTime());
      AtomicLong longestPause = new AtomicLong();
      AtomicBoolean moving = new AtomicBoolean();
      long moveMillis;
      try (Contenders runs =
          Contenders.repeat(
              THREADS,
              () -> {
                try {
                  AcquireResult r = store.tryAcquire(KEY, "mover");
                  answered(lastAnswer, longestPause, moving);
                  if (r instanceof AcquireResult.Acquired a) {
                    Lease lease = a.lease();
                    grants.incrementAndGet();
                    if (!holder.compareAndSet(null, lease.runId())) {
                      violations.add("granted to " + lease.runId() + " while held");
                    }
                    long previous = lastFence.getAndSet(lease.fence());
                    if (lease.fence() <= previous) {
                      violations.add("fence " + lease.fence() + " after " + previous);
                    }
                    holder.set(null);
                    lease.release();
                    answered(lastAnswer, longestPause, moving);
                  } else {
                    busy.incrementAndGet();
                  }
                } catch (LeaseStoreException e) {
                  errors.incrementAndGet();
                  firstError.compareAndSet(null, e.getMessage());
                }
              })) {
        Thread.sleep(500); // handovers under way before the move (a measurement window, no wait)
        long started = System.nanoTime();
        lastAnswer.set(started);
        moving.set(true);
        move(from, to);
        moving.set(false);
        moveMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        Thread.sleep(500);
        runs.stop(Duration.ofSeconds(60));
      }

      Placement now = placementOf(KEY.accountId());
      System.out.printf(
          "Citus shard move of %s: shard %d %s:%d -> %s:%d in %d ms; longest pause between"
              + " answers during the move %d ms; grants %d, busy %d, errors %d%s%n",
          KEY,
          from.shard(),
          from.host(),
          from.port(),
          now.host(),
          now.port(),
          moveMillis,
          TimeUnit.NANOSECONDS.toMillis(longestPause.get()),
          grants.get(),
          busy.get(),
          errors.get(),
          firstError.get() == null ? "" : " (first: " + firstError.get() + ")");
      assertThat(violations).isEmpty();
      assertThat(now.port()).isNotEqualTo(from.port());
      assertThat(grants.get()).isPositive();
      // A release that failed during the move (its lock wait ended at the move's blocking phase)
      // leaves that run's lease to its expiry, as C1 wants: the key is free by the TTL.
      StatusPolling.awaitStatus(store, KEY, s -> !s.isHeld(), TTL.multipliedBy(2));
      Lease after = acquireOnce(store);
      assertThat(after.fence()).isGreaterThan(lastFence.get());
      after.release();
      // Every fence came from the coordinator's sequence: a grant passes it by at most one (the
      // floor), where a worker's copy of the sequence would start at 2^48 times its group.
      assertThat(after.fence()).isLessThanOrEqualTo(sequencePosition() + grants.get() + 2);
    }
  }

  private static void answered(AtomicLong last, AtomicLong longest, AtomicBoolean moving) {
    long now = System.nanoTime();
    long gap = now - last.getAndSet(now);
    if (moving.get()) {
      longest.accumulateAndGet(gap, Math::max);
    }
  }

  private static Lease acquireOnce(LeaseStore store) {
    AcquireResult r = store.tryAcquire(KEY, "mover");
    assertThat(r).isInstanceOf(AcquireResult.Acquired.class);
    return ((AcquireResult.Acquired) r).lease();
  }

  private record Placement(long shard, String host, int port) {}

  private static Placement placementOf(String account) {
    // The account is this test's constant: safe as a literal.
    List<List<Object>> rows =
        db.database()
            .query(
                "SELECT s.shardid, s.nodename, s.nodeport FROM citus_shards s WHERE s.shardid ="
                    + " get_shard_id_for_distribution_column('leasehold_lease', '"
                    + account
                    + "')");
    assertThat(rows).as("a placement of the key's shard").hasSize(1);
    List<Object> row = rows.get(0);
    return new Placement(
        ((Number) row.get(0)).longValue(), (String) row.get(1), ((Number) row.get(2)).intValue());
  }

  private static long sequencePosition() {
    return db.database()
        .queryOne("SELECT pg_sequence_last_value('leasehold_fence_seq')", Long.class);
  }

  private static String[] otherWorker(Placement from) {
    List<List<Object>> rows =
        db.database()
            .query(
                "SELECT node_name, node_port FROM citus_get_active_worker_nodes()"
                    + " WHERE node_port <> "
                    + from.port()
                    + " OR node_name <> '"
                    + from.host()
                    + "'");
    assertThat(rows).as("a second worker to move the shard to").isNotEmpty();
    return new String[] {(String) rows.get(0).get(0), rows.get(0).get(1).toString()};
  }

  private static void move(Placement from, String[] to) throws SQLException {
    Sql.query(
        db.dataSource(),
        "SELECT citus_move_shard_placement(?, ?, ?, ?, ?, shard_transfer_mode := 'force_logical')",
        from.shard(),
        from.host(),
        from.port(),
        to[0],
        Integer.parseInt(to[1]));
  }
}
