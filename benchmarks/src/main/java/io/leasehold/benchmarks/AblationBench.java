package io.leasehold.benchmarks;

import com.zaxxer.hikari.HikariDataSource;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/** What each part of the acquire statement costs (group {@code ablation}). */
final class AblationBench extends BenchGroup {
  private static final List<String> TABLES =
      List.of("ablation_plain", "ablation_unchecked", "ablation_checked", "ablation_triggered");

  AblationBench(BenchGroup.Context context) {
    super(context);
  }

  /**
   * What each design choice of the lease table and statements costs the database, measured with
   * pgbench side by side (interleaved runs, median): CHECK constraints, a row trigger that does
   * nothing, publishing live status, and the opening that sets the timeouts. Alone: {@code ...
   * -Dbench.args="group=ablation"}.
   */
  void ablation() throws Exception {
    pgbenchSection("Ablation: what each choice costs the database (pgbench, tps)", this::ablation);
    contendedGrants();
  }

  private void ablation(Path pgbench) throws Exception {
    HikariDataSource setup = leasePool(2);
    try (Connection c = setup.getConnection();
        Statement s = c.createStatement()) {
      for (String t : TABLES) {
        s.execute("DROP TABLE IF EXISTS " + t);
        s.execute(
            "CREATE TABLE " + t + " (LIKE leasehold_lease INCLUDING ALL) WITH (fillfactor = 70)");
        PgBench.createKeys(c, t);
      }
      // The constraints and the trigger the lease table had before change set 4.
      s.execute(
          "ALTER TABLE ablation_checked"
              + " ADD CHECK (char_length(account_id) BETWEEN 1 AND 128 AND char_length(session_id) BETWEEN 1 AND 128),"
              + " ADD CHECK (fence > 0), ADD CHECK (char_length(holder) <= 200)");
      s.execute(
          "CREATE OR REPLACE FUNCTION ablation_idle() RETURNS trigger LANGUAGE plpgsql AS"
              + " $$ BEGIN IF current_setting('leasehold.notify', true) = 'off' THEN RETURN NULL; END IF; RETURN NULL; END $$");
      s.execute(
          "CREATE TRIGGER ablation_idle_insert AFTER INSERT ON ablation_triggered FOR EACH ROW"
              + " EXECUTE FUNCTION ablation_idle()");
      s.execute(
          "CREATE TRIGGER ablation_idle_change AFTER UPDATE ON ablation_triggered FOR EACH ROW"
              + " WHEN (OLD.run_id IS DISTINCT FROM NEW.run_id OR OLD.released_at IS DISTINCT FROM NEW.released_at)"
              + " EXECUTE FUNCTION ablation_idle()");
    }
    db.closeOpened();
    LeaseStatements quiet = LeaseStatements.of(Duration.ofSeconds(1), Duration.ofSeconds(5));
    String quietScript = PgBench.leaseholdScript(quiet, "ablation_plain", true);
    // Publishing as stores did before issue 30: pg_notify in the RETURNING list of the change.
    String notifyInChange =
        quietScript
            .replace(
                "RETURNING l.fence, l.acquired_at)",
                "RETURNING l.fence, l.acquired_at, pg_notify('ablation_plain', 'acquired ' || l.fence))")
            .replace(
                "RETURNING l.released_at,",
                "RETURNING l.released_at, pg_notify('ablation_plain', 'released ' || l.fence),");
    // Publishing as stores do now: after the change's commit, a transaction of its own that does
    // not wait for its flush (here one per change; a store batches what is queued).
    String publishAfter =
        quietScript.replace(
            "\\endpipeline\n",
            "\\endpipeline\nSELECT set_config('synchronous_commit', 'off', true), pg_notify('ablation_plain', 'x ' || :client_id);\n");
    if (notifyInChange.equals(quietScript) || publishAfter.equals(quietScript)) {
      throw new IllegalStateException(
          "the acquire or release statement changed: update the publishing ablation");
    }
    String twoUpdates =
        "UPDATE %1$s SET expires_at = statement_timestamp() + interval '30 s', renewed_at = statement_timestamp()"
            + " WHERE account_id = 'pgb' AND session_id = 'c' || :client_id;\n";
    record Pair(String what, String with, String without) {}
    List<Pair> pairs =
        List.of(
            new Pair(
                "three CHECK constraints (two plain updates per transaction)",
                String.format(Locale.ROOT, twoUpdates + twoUpdates, "ablation_checked"),
                String.format(Locale.ROOT, twoUpdates + twoUpdates, "ablation_unchecked")),
            new Pair(
                "an idle row trigger (acquire + release)",
                PgBench.leaseholdScript(quiet, "ablation_triggered", true),
                PgBench.leaseholdScript(quiet, "ablation_plain", true)),
            new Pair(
                "pg_notify in the changing statement, as before issue 30 (acquire + release)",
                notifyInChange,
                quietScript),
            new Pair(
                "pg_notify after the commit, asynchronous commit, one per change (acquire + release)",
                publishAfter,
                quietScript),
            new Pair(
                "the opening that sets both timeouts (acquire + release)",
                PgBench.leaseholdScript(quiet, "ablation_plain", true),
                PgBench.leaseholdScript(quiet, "ablation_plain", false)));
    line(
        "`pgbench -n -M prepared -c N -j N -T "
            + window.toSeconds()
            + "`, with and without each choice in turn, median of "
            + windows
            + " runs each.");
    line("");
    line("| choice | clients | with | without | with / without |");
    line("| --- | --- | --- | --- | --- |");
    HikariDataSource keys = db.pool(1);
    for (Pair p : pairs) {
      for (int clients : List.of(2, 16)) {
        double[] with = new double[windows];
        double[] without = new double[windows];
        for (int w = 0; w < windows; w++) {
          with[w] = runFromReleasedKeys(keys, pgbench, p.with(), clients);
          without[w] = runFromReleasedKeys(keys, pgbench, p.without(), clients);
        }
        double a = Throughput.median(with);
        double b = Throughput.median(without);
        line(
            "| "
                + p.what()
                + " | "
                + clients
                + " | "
                + fmt(a)
                + " | "
                + fmt(b)
                + " | "
                + ratio(a, b)
                + " |");
      }
    }
    line("");
    db.closeOpened();
  }

  /**
   * One pgbench run that starts with every key released. A run can otherwise inherit keys that the
   * one before left unexpired (the two-updates script pushes expiry 30 s ahead), and a lease script
   * on held keys measures refusals, which write nothing and never wait for a flush. So a lease
   * script must also have drawn a fence for most of its transactions.
   */
  private double runFromReleasedKeys(
      HikariDataSource keys, Path pgbench, String script, int clients) throws Exception {
    try (Connection c = keys.getConnection();
        Statement s = c.createStatement()) {
      for (String t : TABLES) {
        s.execute("UPDATE " + t + " SET released_at = now(), expires_at = now()");
      }
    }
    long before = fenceSequence(keys);
    double tps = PgBench.run(pgbench, db, script, clients, window);
    double granted = (fenceSequence(keys) - before) / (double) Math.max(1, window.toSeconds());
    if (script.contains("nextval") && granted < tps / 2) {
      throw new IllegalStateException(
          String.format(
              Locale.ROOT,
              "a lease script granted %.0f/s of %.0f transactions/s: its keys were held, so it measured refusals",
              granted,
              tps));
    }
    return tps;
  }

  /**
   * A contended grant that waits for a contender's row lock (the shipped acquire) against one that
   * skips it ({@code FOR UPDATE SKIP LOCKED} in a subquery), every pgbench client on one key:
   * successful grants per second, counted by the fence sequence, and attempts per second. Part of
   * group {@code ablation}.
   */
  void contendedGrants() throws Exception {
    pgbenchSection(
        "Contended grant: wait for a contender's row lock, or skip it (pgbench, one key)",
        this::contendedGrants);
  }

  private void contendedGrants(Path pgbench) throws Exception {
    HikariDataSource setup = leasePool(1);
    execute(
        setup,
        "INSERT INTO leasehold_lease (account_id, session_id, run_id, fence, acquired_at, renewed_at,"
            + " expires_at, released_at) VALUES ('pgb', 'hot', gen_random_uuid(), nextval('leasehold_fence_seq'),"
            + " now(), now(), now(), now()) ON CONFLICT DO NOTHING");
    String run = "md5(:run::text)::uuid";
    String wait =
        LeaseStatements.of(Duration.ofSeconds(1), Duration.ofSeconds(5), false, true).acquire();
    // The same statement, its update restricted to the row a SKIP LOCKED subquery could lock.
    String free =
        wait.substring(wait.indexOf("((l.released_at IS NOT NULL"), wait.indexOf(" RETURNING"));
    String skip =
        wait.replace(
            "WHERE l.account_id = ? AND l.session_id = ? AND " + free,
            "WHERE (l.account_id, l.session_id) = (SELECT s.account_id, s.session_id FROM leasehold_lease AS s"
                + " WHERE s.account_id = ? AND s.session_id = ? AND "
                + free.replace("l.", "s.")
                + " FOR UPDATE OF s SKIP LOCKED)");
    String release =
        "UPDATE leasehold_lease AS l SET released_at = statement_timestamp(), expires_at = statement_timestamp()"
            + " WHERE l.account_id = 'pgb' AND l.session_id = 'hot' AND l.run_id = "
            + run
            + " AND l.released_at IS NULL AND l.expires_at > statement_timestamp();\n";
    line(
        "`pgbench -n -M prepared -c N -j N -T "
            + window.toSeconds()
            + "`, acquire then a release that matches only"
            + " a granted run; median of "
            + windows
            + " runs each, interleaved.");
    line("");
    line(
        "| clients | wait: grants/s | wait: attempts/s | skip: grants/s | skip: attempts/s | grants, wait / skip |");
    line("| --- | --- | --- | --- | --- | --- |");
    for (int clients : List.of(4, 16)) {
      double[][] grants = new double[2][windows];
      double[][] attempts = new double[2][windows];
      for (int w = 0; w < windows; w++) {
        int v = 0;
        for (String acquire : List.of(wait, skip)) {
          String script =
              "\\set run random(1, 2000000000)\n"
                  + PgBench.bind(
                      acquire,
                      run,
                      "'pgbench'",
                      "30000000",
                      "'pgb'",
                      "'hot'",
                      "0",
                      "'pgb'",
                      "'hot'")
                  + ";\n"
                  + release;
          long before = fenceSequence(setup);
          attempts[v][w] = PgBench.run(pgbench, db, script, clients, window);
          grants[v][w] = (fenceSequence(setup) - before) / (double) Math.max(1, window.toSeconds());
          v++;
        }
      }
      double gw = Throughput.median(grants[0]);
      double gs = Throughput.median(grants[1]);
      line(
          "| "
              + clients
              + " | "
              + fmt(gw)
              + " | "
              + fmt(Throughput.median(attempts[0]))
              + " | "
              + fmt(gs)
              + " | "
              + fmt(Throughput.median(attempts[1]))
              + " | "
              + ratio(gw, gs)
              + " |");
    }
    line("");
    db.closeOpened();
  }

  private static long fenceSequence(HikariDataSource ds) throws java.sql.SQLException {
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement();
        java.sql.ResultSet rs = s.executeQuery("SELECT last_value FROM leasehold_fence_seq")) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
