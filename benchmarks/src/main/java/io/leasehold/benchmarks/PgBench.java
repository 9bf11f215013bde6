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
   * Leasehold's statements exactly as the store sends them (taken from the store's own SQL, bind
   * parameters replaced by pgbench expressions): each operation a pipeline of the opening and the
   * statement, one Sync, one implicit transaction. pgbench cannot carry the fence from one pipeline
   * into the next ({@code \gset} is not allowed in pipeline mode), so this release matches the
   * fence column against itself.
   */
  static final String LEASEHOLD =
      leaseholdScript(LeaseStatements.of(Duration.ofSeconds(1), Duration.ofSeconds(5)));

  /**
   * Leasehold's acquire + release as pgbench script, on another table with the same columns.
   *
   * @param sql the statements
   * @param table the table to run them on
   * @param opening false to leave out each pipeline's opening (the timeouts)
   */
  static String leaseholdScript(LeaseStatements sql, String table, boolean opening) {
    String script = leaseholdScript(sql).replace("leasehold_lease", table);
    if (opening) {
      return script;
    }
    return script.replaceAll("(?m)^SELECT statement_timestamp\\(\\), set_config.*;\n", "");
  }

  private static String leaseholdScript(LeaseStatements sql) {
    String account = "'pgb'";
    String session = "('c' || :client_id)";
    String run = "md5(:run::text)::uuid";
    return "\\set run random(1, 2000000000)\n"
        + pipeline(
            bind(
                sql.acquire(),
                run,
                "'pgbench'",
                "30000000",
                account,
                session,
                "0",
                account,
                session))
        + pipeline(bind(sql.release(), account, session, run, "l.fence"));
  }

  /** Replaces the statement's {@code ?} placeholders, in order, by pgbench expressions. */
  static String bind(String statement, String... values) {
    StringBuilder out = new StringBuilder();
    int next = 0;
    for (char ch : statement.toCharArray()) {
      if (ch == '?') {
        out.append(values[next++]);
      } else {
        out.append(ch);
      }
    }
    if (next != values.length) {
      throw new IllegalStateException(
          "expected " + next + " values, got " + values.length + ": " + statement);
    }
    return out.toString();
  }

  /** The opening and the statement (one line each) between pipeline markers. */
  private static String pipeline(String pipelined) {
    int split = pipelined.indexOf("; ");
    return "\\startpipeline\n"
        + pipelined.substring(0, split + 1)
        + "\n"
        + pipelined.substring(split + 2)
        + ";\n"
        + "\\endpipeline\n";
  }

  static Optional<Path> find() {
    for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
      Path p = Path.of(dir, "pgbench");
      if (Files.isExecutable(p)) {
        return Optional.of(p);
      }
    }
    try (Stream<Path> versions = Files.list(Path.of("/usr/lib/postgresql"))) {
      return versions
          .map(v -> v.resolve("bin/pgbench"))
          .filter(Files::isExecutable)
          .sorted()
          .reduce((a, b) -> b);
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  /**
   * The rows of the keys the scripts use ({@code 'c' || :client_id}, 0-based), released: the
   * scripts measure a key's every acquire after its first, which inserts the row once.
   */
  static void createKeys(java.sql.Connection c, String table) throws java.sql.SQLException {
    try (java.sql.Statement s = c.createStatement()) {
      s.execute(
          "INSERT INTO "
              + table
              + " (account_id, session_id, run_id, fence, acquired_at, renewed_at, expires_at,"
              + " released_at) SELECT 'pgb', 'c' || g, gen_random_uuid(), nextval('leasehold_fence_seq'), now(), now(), now(),"
              + " now() FROM generate_series(0, 63) g ON CONFLICT DO NOTHING");
    }
  }

  static double run(Path pgbench, BenchDatabase db, String script, int clients, Duration window)
      throws Exception {
    Path file = Files.createTempFile("leasehold-pgbench", ".sql");
    Files.writeString(file, script);
    ProcessBuilder pb =
        new ProcessBuilder(
            List.of(
                pgbench.toString(),
                "-n",
                "-M",
                "prepared",
                "-c",
                Integer.toString(clients),
                "-j",
                Integer.toString(clients),
                "-T",
                Long.toString(Math.max(1, window.toSeconds())),
                "-f",
                file.toString(),
                "-h",
                "localhost",
                "-p",
                Integer.toString(db.port),
                "-U",
                db.user,
                "postgres"));
    pb.environment().put("PGPASSWORD", db.password);
    pb.redirectErrorStream(true);
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes());
    int exit = p.waitFor();
    Matcher m = Pattern.compile("tps = ([0-9.]+)").matcher(out);
    // pgbench still prints a rate when clients aborted on an error; such a rate measures nothing.
    if (exit != 0 || !m.find() || out.contains("aborted")) {
      throw new IllegalStateException("pgbench failed:\n" + out);
    }
    return Double.parseDouble(m.group(1));
  }
}
