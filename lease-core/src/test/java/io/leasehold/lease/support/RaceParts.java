package io.leasehold.lease.support;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.lease.AccessPolicy;
import io.leasehold.lease.LeaseStore;
import io.leasehold.testing.TestDatabaseExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/**
 * What the race tests of one store against another share: their keys, their stores, the pools of
 * their child processes, and a history of the lease table kept by a trigger, against which they
 * check that no two runs held a key at once and that fences rose.
 */
public final class RaceParts {
  private RaceParts() {}

  /** {@code n} keys of one account: {@code prefix-0} to {@code prefix-(n-1)}. */
  public static List<LeaseKey> keys(String account, String prefix, int n) {
    List<LeaseKey> keys = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      keys.add(LeaseKey.of(account, prefix + "-" + i));
    }
    return keys;
  }

  /** A store for a racer: anyone allowed, leases of 2 s. */
  public static LeaseStore store(DataSource ds, String holder, boolean dedicated) {
    return LeaseStore.builder(ds)
        .accessPolicy(AccessPolicy.allowAll())
        .ttl(Duration.ofSeconds(2))
        .defaultHolder(holder)
        .dedicatedPool(dedicated)
        .build();
  }

  /** A pool of a child process, from the URL and credentials its parent passed. */
  public static HikariDataSource pool(String url, String user, String password, int size) {
    HikariConfig c = new HikariConfig();
    c.setJdbcUrl(url);
    c.setUsername(user);
    c.setPassword(password);
    c.setMaximumPoolSize(size);
    return new HikariDataSource(c);
  }

  /**
   * Records every insert and update of the lease table in {@code <prefix>_history} (emptied first):
   * the operation, the key, the row's run, fence, expiry and release before, and its run, fence,
   * holder, start, expiry, release and takeover flag after.
   */
  public static void installHistory(TestDatabaseExtension db, String prefix) {
    String history = prefix + "_history";
    db.database()
        .execute(
            "CREATE TABLE IF NOT EXISTS "
                + history
                + " (id bigserial PRIMARY KEY, op text,"
                + " account_id text, session_id text, old_run uuid, old_fence bigint,"
                + " old_expires timestamptz, old_released timestamptz, new_run uuid,"
                + " new_fence bigint, new_holder text, new_acquired timestamptz, new_expires timestamptz,"
                + " new_released timestamptz, new_took_over boolean)");
    db.database().execute("TRUNCATE " + history);
    db.database()
        .execute(
            "CREATE OR REPLACE FUNCTION "
                + prefix
                + "_record() RETURNS trigger LANGUAGE plpgsql AS $$"
                + " BEGIN IF TG_OP = 'INSERT' THEN INSERT INTO "
                + history
                + " (op, account_id, session_id, new_run, new_fence, new_holder, new_acquired,"
                + " new_expires, new_released, new_took_over) VALUES ('I', NEW.account_id,"
                + " NEW.session_id, NEW.run_id, NEW.fence, NEW.holder, NEW.acquired_at,"
                + " NEW.expires_at, NEW.released_at, NEW.took_over); ELSE INSERT INTO "
                + history
                + " (op, account_id, session_id, old_run, old_fence, old_expires, old_released,"
                + " new_run, new_fence, new_holder, new_acquired, new_expires, new_released,"
                + " new_took_over) VALUES ('U', NEW.account_id, NEW.session_id, OLD.run_id,"
                + " OLD.fence, OLD.expires_at, OLD.released_at, NEW.run_id, NEW.fence,"
                + " NEW.holder, NEW.acquired_at, NEW.expires_at, NEW.released_at,"
                + " NEW.took_over); END IF; RETURN NULL; END $$");
    dropHistoryTrigger(db, prefix);
    db.database()
        .execute(
            "CREATE TRIGGER "
                + prefix
                + "_history_trg AFTER INSERT OR UPDATE ON leasehold_lease"
                + " FOR EACH ROW EXECUTE FUNCTION "
                + prefix
                + "_record()");
  }

  /** Stops recording (the history table stays for the checks). */
  public static void dropHistoryTrigger(TestDatabaseExtension db, String prefix) {
    db.database().execute("DROP TRIGGER IF EXISTS " + prefix + "_history_trg ON leasehold_lease");
  }
}
