package io.leasehold.benchmarks;

import com.zaxxer.hikari.HikariDataSource;
import io.leasehold.lease.LeaseSchema;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/** What each part of the acquire statement costs (group {@code ablation}). */
final class AblationBench extends BenchGroup {
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
    line("## Ablation: what each choice costs the database (pgbench, tps)");
    line("");
    Optional<Path> pgbench = PgBench.find();
    if (pgbench.isEmpty() || db.port < 0) {
      line("pgbench not found (or an external database): skipped.");
      line("");
      return;
    }
    HikariDataSource setup = db.pool(2);
    LeaseSchema.defaults().apply(setup);
    try (Connection c = setup.getConnection();
        Statement s = c.createStatement()) {
      for (String t : List.of("ablation_plain", "ablation_checked", "ablation_triggered")) {
        s.execute("DROP TABLE IF EXISTS " + t);
        s.execute("CREATE TABLE " + t + " (LIKE leasehold_lease INCLUDING ALL) WITH (fillfactor = 70)");
        PgBench.createKeys(c, t);
      }
      // The constraints and the trigger the lease table had before change set 4.
      s.execute("ALTER TABLE ablation_checked"
          + " ADD CHECK (char_length(account_id) BETWEEN 1 AND 128 AND char_length(session_id) BETWEEN 1 AND 128),"
          + " ADD CHECK (fence > 0), ADD CHECK (char_length(holder) <= 200)");
      s.execute("CREATE OR REPLACE FUNCTION ablation_idle() RETURNS trigger LANGUAGE plpgsql AS"
          + " $$ BEGIN IF current_setting('leasehold.notify', true) = 'off' THEN RETURN NULL; END IF; RETURN NULL; END $$");
      s.execute("CREATE TRIGGER ablation_idle_insert AFTER INSERT ON ablation_triggered FOR EACH ROW"
          + " EXECUTE FUNCTION ablation_idle()");
      s.execute("CREATE TRIGGER ablation_idle_change AFTER UPDATE ON ablation_triggered FOR EACH ROW"
          + " WHEN (OLD.run_id IS DISTINCT FROM NEW.run_id OR OLD.released_at IS DISTINCT FROM NEW.released_at)"
          + " EXECUTE FUNCTION ablation_idle()");
    }
    db.closeOpened();
    LeaseStatements quiet = new LeaseStatements(Duration.ofSeconds(1), Duration.ofSeconds(5));
    LeaseStatements loud = new LeaseStatements(Duration.ofSeconds(1), Duration.ofSeconds(5), true);
    String twoUpdates =
        "UPDATE %1$s SET expires_at = statement_timestamp() + interval '30 s', renewed_at = statement_timestamp()"
            + " WHERE account_id = 'pgb' AND session_id = 'c' || :client_id;\n";
    record Pair(String what, String with, String without) {}
    List<Pair> pairs =
        List.of(
            new Pair("three CHECK constraints (two plain updates per transaction)",
                String.format(Locale.ROOT, twoUpdates + twoUpdates, "ablation_checked"),
                String.format(Locale.ROOT, twoUpdates + twoUpdates, "ablation_plain")),
            new Pair("an idle row trigger (acquire + release)",
                PgBench.leaseholdScript(quiet, "ablation_triggered", true),
                PgBench.leaseholdScript(quiet, "ablation_plain", true)),
            new Pair("publishing live status, pg_notify (acquire + release)",
                PgBench.leaseholdScript(loud, "ablation_plain", true),
                PgBench.leaseholdScript(quiet, "ablation_plain", true)),
            new Pair("the opening that sets both timeouts (acquire + release)",
                PgBench.leaseholdScript(quiet, "ablation_plain", true),
                PgBench.leaseholdScript(quiet, "ablation_plain", false)));
    line("`pgbench -n -M prepared -c N -j N -T " + window.toSeconds() + "`, with and without each choice in turn, median of "
        + windows + " runs each.");
    line("");
    line("| choice | clients | with | without | with / without |");
    line("| --- | --- | --- | --- | --- |");
    for (Pair p : pairs) {
      for (int clients : List.of(2, 16)) {
        double[] with = new double[windows];
        double[] without = new double[windows];
        for (int w = 0; w < windows; w++) {
          with[w] = PgBench.run(pgbench.get(), db, p.with(), clients, window);
          without[w] = PgBench.run(pgbench.get(), db, p.without(), clients, window);
        }
        double a = Throughput.median(with);
        double b = Throughput.median(without);
        line("| " + p.what() + " | " + clients + " | " + fmt(a) + " | " + fmt(b) + " | " + ratio(a, b) + " |");
      }
    }
    line("");
  }
}
