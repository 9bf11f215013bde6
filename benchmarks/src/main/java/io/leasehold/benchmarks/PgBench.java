package io.leasehold.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/** pgbench running the seed's statements and Leasehold's, when it is installed. */
final class PgBench {
  private PgBench() {}

  /** The seed's acquire (conditional UPSERT) and release (DELETE), one key per client. */
  static final String SEED =
      "\\set run random(1, 2000000000)\n"
          + "INSERT INTO seed_lease (account_id, session_id, run_id, expires_at) VALUES ('pgb', 'c' || :client_id,"
          + " md5(:run::text)::uuid, clock_timestamp() + interval '30 seconds') ON CONFLICT (account_id, session_id)"
          + " DO UPDATE SET run_id = EXCLUDED.run_id, expires_at = EXCLUDED.expires_at"
          + " WHERE seed_lease.expires_at <= clock_timestamp() RETURNING run_id;\n"
          + "DELETE FROM seed_lease WHERE account_id = 'pgb' AND session_id = 'c' || :client_id"
          + " AND run_id = md5(:run::text)::uuid;\n";

  /**
   * Leasehold's statements as the store sends them: each operation a pipeline of the timeouts and
   * the statement, one Sync, one implicit transaction. (pgbench cannot carry the fence from one
   * pipeline into the next, so this release matches key and run id only.)
   */
  static final String LEASEHOLD =
      "\\set run random(1, 2000000000)\n"
          + "\\startpipeline\n"
          + "SELECT set_config('lock_timeout', '1000', true), set_config('statement_timeout', '5000', true);\n"
          + "WITH now AS (SELECT clock_timestamp() AS t) INSERT INTO leasehold_lease AS l (account_id, session_id,"
          + " run_id, fence, holder, acquired_at, renewed_at, expires_at, released_at) SELECT 'pgb', 'c' || :client_id,"
          + " md5(:run::text)::uuid, COALESCE((SELECT f.fence FROM leasehold_lease AS f WHERE f.account_id = 'pgb'"
          + " AND f.session_id = 'c' || :client_id), nextval('leasehold_fence_seq')), 'pgbench', now.t, now.t,"
          + " now.t + 30000000 * interval '1 microsecond', NULL FROM now ON CONFLICT (account_id, session_id)"
          + " DO UPDATE SET run_id = EXCLUDED.run_id, fence = nextval('leasehold_fence_seq'), holder = EXCLUDED.holder,"
          + " acquired_at = GREATEST(EXCLUDED.acquired_at, l.released_at),"
          + " renewed_at = GREATEST(EXCLUDED.acquired_at, l.released_at),"
          + " expires_at = GREATEST(EXCLUDED.acquired_at, l.released_at) + (EXCLUDED.expires_at - EXCLUDED.acquired_at),"
          + " released_at = NULL WHERE l.released_at IS NOT NULL OR l.expires_at <= EXCLUDED.acquired_at"
          + " RETURNING l.fence;\n"
          + "\\endpipeline\n"
          + "\\startpipeline\n"
          + "SELECT set_config('lock_timeout', '1000', true), set_config('statement_timeout', '5000', true);\n"
          + "WITH now AS (SELECT clock_timestamp() AS t), upd AS (UPDATE leasehold_lease AS l SET released_at = now.t,"
          + " expires_at = now.t FROM now WHERE l.account_id = 'pgb' AND l.session_id = 'c' || :client_id"
          + " AND l.run_id = md5(:run::text)::uuid AND l.released_at IS NULL"
          + " AND l.expires_at > now.t RETURNING 1) SELECT now.t, EXISTS (SELECT 1 FROM upd) FROM now;\n"
          + "\\endpipeline\n";

  static Optional<Path> find() {
    for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
      Path p = Path.of(dir, "pgbench");
      if (Files.isExecutable(p)) {
        return Optional.of(p);
      }
    }
    try (Stream<Path> versions = Files.list(Path.of("/usr/lib/postgresql"))) {
      return versions.map(v -> v.resolve("bin/pgbench")).filter(Files::isExecutable).sorted().reduce((a, b) -> b);
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  static double run(Path pgbench, BenchDatabase db, String script, int clients, Duration window) throws Exception {
    Path file = Files.createTempFile("leasehold-pgbench", ".sql");
    Files.writeString(file, script);
    ProcessBuilder pb =
        new ProcessBuilder(
            List.of(pgbench.toString(), "-n", "-M", "prepared", "-c", Integer.toString(clients), "-j",
                Integer.toString(clients), "-T", Long.toString(Math.max(1, window.toSeconds())), "-f", file.toString(),
                "-h", "localhost", "-p", Integer.toString(db.port), "-U", db.user, "postgres"));
    pb.environment().put("PGPASSWORD", db.password);
    pb.redirectErrorStream(true);
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes());
    p.waitFor();
    Matcher m = Pattern.compile("tps = ([0-9.]+)").matcher(out);
    if (!m.find()) {
      throw new IllegalStateException("pgbench failed:\n" + out);
    }
    return Double.parseDouble(m.group(1));
  }
}
