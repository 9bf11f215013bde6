package io.leasehold.examples.demo;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;

/**
 * Command-line options of the demos.
 *
 * @param ttl the lease TTL
 * @param jdbcUrl an external PostgreSQL database, or empty for the embedded one
 * @param user the external database's user
 * @param password the external database's password
 * @param mermaid where to write the run's timeline as a Mermaid diagram, if anywhere
 * @param help whether only the usage was asked for
 */
public record DemoOptions(
    Duration ttl,
    Optional<String> jdbcUrl,
    String user,
    String password,
    Optional<Path> mermaid,
    boolean help) {

  static final String USAGE =
      String.join(
          "\n",
          "options:",
          "  --ttl <duration>      lease time to live, e.g. 2s, 1500ms, 1m (default 2s; 600ms to 10m)",
          "  --jdbc-url <url>      use this PostgreSQL database instead of an embedded one",
          "  --user <name>         its user (default postgres)",
          "  --password <secret>   its password (default empty)",
          "  --mermaid <file>      also write the timeline as a Mermaid diagram to <file>",
          "  --help                print this and exit");

  /**
   * Parses the arguments.
   *
   * @param args the command line
   * @return the options
   * @throws IllegalArgumentException with a message for the user if an argument is wrong
   */
  public static DemoOptions parse(String... args) {
    Duration ttl = Duration.ofSeconds(2);
    Optional<String> url = Optional.empty();
    String user = "postgres";
    String password = "";
    Optional<Path> mermaid = Optional.empty();
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      if (a.isBlank()) {
        continue;
      }
      if (a.equals("--help") || a.equals("-h")) {
        return new DemoOptions(ttl, url, user, password, mermaid, true);
      }
      if (i + 1 >= args.length) {
        throw new IllegalArgumentException("missing value after " + a);
      }
      String v = args[++i];
      switch (a) {
        case "--ttl" -> ttl = duration(v);
        case "--jdbc-url" -> url = Optional.of(v);
        case "--user" -> user = v;
        case "--password" -> password = v;
        case "--mermaid" -> mermaid = Optional.of(Path.of(v));
        default -> throw new IllegalArgumentException("unknown option " + a);
      }
    }
    if (ttl.compareTo(Duration.ofMillis(600)) < 0 || ttl.compareTo(Duration.ofMinutes(10)) > 0) {
      throw new IllegalArgumentException("--ttl must be between 600ms and 10m");
    }
    return new DemoOptions(ttl, url, user, password, mermaid, false);
  }

  /**
   * Parses a demo's command line: prints the usage and exits with 2 on a bad argument, prints the
   * usage and returns empty for {@code --help}.
   *
   * @param args the command line
   * @param what one line saying what the demo shows, printed with the usage
   * @return the options, or empty if only the usage was asked for
   */
  public static Optional<DemoOptions> fromCommandLine(String[] args, String what) {
    DemoOptions options;
    try {
      options = parse(args);
    } catch (IllegalArgumentException e) {
      System.err.println(e.getMessage());
      System.err.println(USAGE);
      System.exit(2);
      return Optional.empty();
    }
    if (options.help()) {
      System.out.println(what);
      System.out.println(USAGE);
      return Optional.empty();
    }
    return Optional.of(options);
  }

  static Duration duration(String text) {
    String t = text.strip().toLowerCase(Locale.ROOT);
    try {
      if (t.endsWith("ms")) {
        return Duration.ofMillis(Long.parseLong(t.substring(0, t.length() - 2)));
      }
      if (t.endsWith("s")) {
        return Duration.ofMillis(
            Math.round(Double.parseDouble(t.substring(0, t.length() - 1)) * 1000));
      }
      if (t.endsWith("m")) {
        return Duration.ofSeconds(Long.parseLong(t.substring(0, t.length() - 1)) * 60);
      }
    } catch (NumberFormatException e) {
      // fall through to the error below
    }
    throw new IllegalArgumentException("not a duration: " + text + " (try 2s, 1500ms or 1m)");
  }
}
