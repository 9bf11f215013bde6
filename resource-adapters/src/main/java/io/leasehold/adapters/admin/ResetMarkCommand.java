package io.leasehold.adapters.admin;

import io.leasehold.adapters.file.FencedFileStore;
import io.leasehold.adapters.jdbc.FencedJdbcWriter;
import io.leasehold.adapters.jdbc.HighWaterSchema;
import io.leasehold.adapters.tool.FencedTool;
import io.leasehold.adapters.tool.FencedToolExecutor;
import io.leasehold.adapters.tool.FileToolJournal;
import io.leasehold.fencing.AdminPolicy;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.LeaseholdException;
import io.leasehold.fencing.MarkReset;
import io.leasehold.fencing.TokenVerifier;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import javax.sql.DataSource;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The shell command a resource owner runs to reset a guard's high-water mark for one key after an
 * incident (a forged token, a leaked key): docs/security.md gives the whole procedure.
 *
 * <pre>
 * java -cp "$CLASSPATH" io.leasehold.adapters.admin.ResetMarkCommand \
 *     --file-store /srv/agent-files \
 *     --account acct-7 --session chat-1 --mark 42 --reason "forged token, incident 7"
 * </pre>
 *
 * Exactly one resource: {@code --file-store DIR}, {@code --tool-journal FILE}, or {@code --jdbc-url
 * URL} (with {@code --jdbc-user}, the password in the environment variable {@code
 * LEASEHOLD_JDBC_PASSWORD}, and optionally {@code --table}). {@code --mark 0} forgets the key's
 * fence: its next run is admitted whatever its fence. The operator recorded is the operating-system
 * user running the command: whoever can run it on the resource's host could change the resource's
 * files or tables directly anyway, so the command grants that user the reset and nothing more, and
 * the reset is audited like any other.
 *
 * <p>Exit status: 0 after a reset (printed), 2 for bad arguments, 1 if the reset failed.
 */
public final class ResetMarkCommand {
  private static final String USAGE =
      "usage: ResetMarkCommand (--file-store DIR | --tool-journal FILE | --jdbc-url URL"
          + " [--jdbc-user USER] [--table NAME]) --account ID --session ID --mark FENCE --reason TEXT\n"
          + "  --mark 0 forgets the mark; the JDBC password is read from LEASEHOLD_JDBC_PASSWORD";

  private ResetMarkCommand() {}

  /**
   * Runs the command and exits with its status.
   *
   * @param args the arguments (see the class javadoc)
   */
  public static void main(String[] args) {
    Optional<String> user = operatingSystemUser();
    if (user.isEmpty()) {
      System.err.println(
          "reset refused: the operating system did not say which user runs this command,"
              + " and the reset must record a real operator");
      System.exit(1);
    }
    System.exit(run(args, user.get(), System.getenv(), System.out, System.err));
  }

  /**
   * The operating system's account of this process, as the kernel reports it (issue 27): not the
   * {@code user.name} system property, which {@code -Duser.name=...} sets to any name, so the audit
   * would record whatever the caller claimed.
   *
   * @return the user, or empty if the platform does not say
   */
  static Optional<String> operatingSystemUser() {
    return ProcessHandle.current().info().user().filter(u -> !u.isBlank());
  }

  /**
   * Runs the command; package-private, so that only {@link #main} (with the operating system's
   * user) and the tests choose the operator.
   *
   * @param args the arguments
   * @param operator the operating-system user, recorded as the operator
   * @param env the environment (for the JDBC password)
   * @param out where the reset is printed
   * @param err where errors are printed
   * @return the exit status
   */
  static int run(
      String[] args, String operator, Map<String, String> env, PrintStream out, PrintStream err) {
    Map<String, String> opts = new HashMap<>();
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      if (!a.startsWith("--") || i + 1 >= args.length) {
        err.println("malformed arguments at '" + a + "'\n" + USAGE);
        return 2;
      }
      if (opts.put(a.substring(2), args[++i]) != null) {
        err.println("option " + a + " given twice\n" + USAGE);
        return 2;
      }
    }
    Set<String> known =
        Set.of(
            "file-store",
            "tool-journal",
            "jdbc-url",
            "jdbc-user",
            "table",
            "account",
            "session",
            "mark",
            "reason");
    for (String k : opts.keySet()) {
      if (!known.contains(k)) {
        err.println("unknown option --" + k + "\n" + USAGE);
        return 2;
      }
    }
    long resources =
        Set.of("file-store", "tool-journal", "jdbc-url").stream().filter(opts::containsKey).count();
    LeaseKey key;
    long mark;
    String reason = opts.get("reason");
    try {
      if (resources != 1) {
        throw new IllegalArgumentException("name exactly one resource");
      }
      key = LeaseKey.of(opts.get("account"), opts.get("session"));
      if (opts.get("mark") == null) {
        throw new IllegalArgumentException("--mark is required");
      }
      mark = Long.parseLong(opts.get("mark"));
      MarkReset.checkText("reason", reason);
      MarkReset.checkText("operator", operator);
    } catch (IllegalArgumentException e) {
      err.println(e.getMessage() + "\n" + USAGE);
      return 2;
    }
    AdminPolicy onlyThisOperator = AdminPolicy.operators(Set.of(operator));
    try {
      MarkReset reset;
      if (opts.containsKey("file-store")) {
        // Trusting every writer is harmless here: this store object admits no write.
        reset =
            FencedFileStore.builder(Path.of(opts.get("file-store")))
                .verifier(TokenVerifier.trustEveryWriter())
                .adminPolicy(onlyThisOperator)
                .open()
                .resetMark(key, mark, operator, reason);
      } else if (opts.containsKey("tool-journal")) {
        reset =
            FencedToolExecutor.builder()
                .verifier(TokenVerifier.trustEveryWriter())
                .adminPolicy(onlyThisOperator)
                .journal(FileToolJournal.open(Path.of(opts.get("tool-journal"))))
                .tool(FencedTool.of("none", Function.identity()))
                .build()
                .resetMark(key, mark, operator, reason);
      } else {
        PGSimpleDataSource ds = new PGSimpleDataSource();
        ds.setUrl(opts.get("jdbc-url"));
        if (opts.containsKey("jdbc-user")) {
          ds.setUser(opts.get("jdbc-user"));
        }
        String password = env.get("LEASEHOLD_JDBC_PASSWORD");
        if (password != null) {
          ds.setPassword(password);
        }
        reset =
            jdbcWriter(
                    ds, opts.getOrDefault("table", HighWaterSchema.DEFAULT_TABLE), onlyThisOperator)
                .resetMark(key, mark, operator, reason);
      }
      out.println(
          "reset the mark of "
              + reset.key()
              + " from "
              + reset.previousMark()
              + " to "
              + reset.newMark()
              + " by "
              + reset.operator()
              + " at "
              + reset.at()
              + " ("
              + reset.reason()
              + ")");
      return 0;
    } catch (LeaseholdException | IllegalArgumentException | IllegalStateException e) {
      err.println("reset failed: " + e.getMessage());
      return 1;
    }
  }

  private static FencedJdbcWriter jdbcWriter(DataSource ds, String table, AdminPolicy policy) {
    return FencedJdbcWriter.builder(ds)
        .schema(new HighWaterSchema(table))
        .verifier(TokenVerifier.trustEveryWriter())
        .adminPolicy(policy)
        .build();
  }
}
