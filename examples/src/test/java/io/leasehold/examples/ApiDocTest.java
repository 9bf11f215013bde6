package io.leasehold.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Issue 26: docs/api.md lists every package a library module exports, and nothing else. Reads the
 * module descriptors of the build (not consumer-test's applications) and the page's tables.
 */
class ApiDocTest {
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
  private static final Pattern MODULE = Pattern.compile("^module ([\\w.]+)", Pattern.MULTILINE);
  // A qualified export or open may list its modules over several lines (as google-java-format
  // writes a long one).
  private static final Pattern EXPORT =
      Pattern.compile("^\\s*exports ([\\w.]+)(?:\\s+to\\s+([\\w.,\\s]+))?;", Pattern.MULTILINE);
  private static final Pattern OPEN =
      Pattern.compile("^\\s*opens ([\\w.]+)(?:\\s+to\\s+([\\w.,\\s]+))?;", Pattern.MULTILINE);

  /** A row of the first table: | `module` (`artifact`) | `package` | for | */
  private static final Pattern EXPORT_ROW =
      Pattern.compile("^\\| `([\\w.]+)` \\(`[\\w-]+`\\) \\| `([\\w.]+)` \\|", Pattern.MULTILINE);

  /** A row of the second table: | `module` | `package` | `to`, `to` | why | */
  private static final Pattern QUALIFIED_ROW =
      Pattern.compile(
          "^\\| `([\\w.]+)` \\| `([\\w.]+)` \\| ((?:`[\\w.]+`(?:, )?)+) \\|", Pattern.MULTILINE);

  @Test
  void theApiPageListsExactlyWhatTheDescriptorsExport() throws IOException {
    Set<String> exported = new TreeSet<>();
    Set<String> qualified = new TreeSet<>();
    Set<String> opened = new TreeSet<>();
    try (Stream<Path> s = Files.walk(ROOT)) {
      for (Path descriptor :
          s.filter(p -> p.endsWith("src/main/java/module-info.java"))
              .filter(p -> !ROOT.relativize(p).startsWith("consumer-test"))
              .filter(p -> !p.toString().contains("/target/"))
              .toList()) {
        String text = Files.readString(descriptor);
        Matcher module = MODULE.matcher(text);
        assertThat(module.find()).as("module name in %s", descriptor).isTrue();
        Matcher e = EXPORT.matcher(text);
        while (e.find()) {
          if (e.group(2) == null) {
            exported.add(module.group(1) + " " + e.group(1));
          } else {
            qualified.add(module.group(1) + " " + e.group(1) + " to " + normalize(e.group(2)));
          }
        }
        Matcher o = OPEN.matcher(text);
        while (o.find()) {
          assertThat(o.group(2))
              .as("%s opens %s to everyone", module.group(1), o.group(1))
              .isNotNull();
          opened.add(o.group(1));
        }
      }
    }
    String page = Files.readString(ROOT.resolve("docs/api.md"));
    Set<String> listed = new TreeSet<>();
    Matcher row = EXPORT_ROW.matcher(page);
    while (row.find()) {
      listed.add(row.group(1) + " " + row.group(2));
    }
    Set<String> listedQualified = new TreeSet<>();
    Matcher q = QUALIFIED_ROW.matcher(page);
    while (q.find()) {
      listedQualified.add(
          q.group(1) + " " + q.group(2) + " to " + normalize(q.group(3).replace("`", "")));
    }
    assertThat(exported).as("exports").hasSizeGreaterThan(10);
    assertThat(listed).as("docs/api.md's exported packages").isEqualTo(exported);
    assertThat(listedQualified).as("docs/api.md's qualified exports").isEqualTo(qualified);
    for (String p : opened) {
      assertThat(page).as("docs/api.md names the opened package %s", p).contains("`" + p + "`");
    }
  }

  private static String normalize(String modules) {
    return String.join(",", new TreeSet<>(Set.of(modules.replaceAll("\\s", "").split(","))));
  }
}
