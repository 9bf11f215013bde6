package io.leasehold.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every Java sample in README.md and docs/ is marked {@code <!-- snippet: File.java#region -->} and
 * must equal that region of compiled code in this module or the Spring Boot example (main or test
 * sources), so the docs cannot drift from the API; or it is a whole file marked {@code <!--
 * consumer-test: PATH -->}, which consumer-test's {@code readme} project writes out of README.md,
 * builds in an empty project and runs. An unmarked Java block fails the test.
 */
class DocSnippetsTest {
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
  private static final Pattern BLOCK =
      Pattern.compile(
          "(<!-- (snippet: ([\\w/.]+)#([\\w-]+)|consumer-test: [\\w/.]+) -->\\s*\\n)?```java\\n(.*?)```",
          Pattern.DOTALL);

  @Test
  void everyJavaSampleInTheDocsIsCompiledCode() throws IOException {
    List<Path> docs = new ArrayList<>();
    docs.add(ROOT.resolve("README.md"));
    try (Stream<Path> s = Files.walk(ROOT.resolve("docs"))) {
      s.filter(p -> p.toString().endsWith(".md")).forEach(docs::add);
    }
    int checked = 0;
    for (Path doc : docs) {
      String text = Files.readString(doc);
      Matcher m = BLOCK.matcher(text);
      while (m.find()) {
        assertThat(m.group(1)).as("Java block without a snippet marker in %s", doc).isNotNull();
        checked++;
        if (m.group(3) == null) {
          // A whole file consumer-test builds and runs: it must at least be a class with imports.
          assertThat(doc.getFileName().toString())
              .as("consumer-test reads README.md only")
              .isEqualTo("README.md");
          assertThat(m.group(5)).contains("import ").contains("public class ");
          continue;
        }
        String region = region(m.group(3), m.group(4));
        assertThat(normalize(m.group(5)))
            .as("%s quotes %s#%s", ROOT.relativize(doc), m.group(3), m.group(4))
            .isEqualTo(normalize(region));
        // Issue 31: a reader must not have to list the jars to find a type's package. A sample
        // shows its imports, or the line before it names them, exactly as the source imports.
        String want = packagesLine(sourceOf(m.group(3)), m.group(5));
        if (!m.group(5).contains("import ") && want != null) {
          String before = text.substring(0, m.start()).stripTrailing();
          String previous = before.substring(before.lastIndexOf('\n') + 1);
          assertThat(previous)
              .as(
                  "the line before %s#%s in %s names its packages",
                  m.group(3), m.group(4), ROOT.relativize(doc))
              .isEqualTo(want);
        }
      }
    }
    assertThat(checked).isPositive();
  }

  /** This module's sources, and the Spring Boot example's (examples/spring-boot/src). */
  private static Path sourceOf(String file) throws IOException {
    try (Stream<Path> s = Files.walk(ROOT.resolve("examples"))) {
      return s.filter(
              p ->
                  p.endsWith(file)
                      && ROOT.resolve("examples")
                          .relativize(p)
                          .toString()
                          .matches("(spring-boot/)?src/.*"))
          .findFirst()
          .orElseThrow(() -> new AssertionError("no source file " + file));
    }
  }

  private static final Pattern IMPORT = Pattern.compile("import ([\\w.]+)\\.(\\w+);");

  /**
   * "Packages: `a.b` (`C`, `D`); `e.f` (`G`)." for the types the sample uses that its source file
   * imports, or null if it uses none.
   */
  static String packagesLine(Path source, String sample) throws IOException {
    java.util.TreeMap<String, java.util.TreeSet<String>> used = new java.util.TreeMap<>();
    for (String line : Files.readAllLines(source)) {
      Matcher m = IMPORT.matcher(line.strip());
      if (m.matches()
          && Pattern.compile("(?<![\\w.])" + Pattern.quote(m.group(2)) + "\\b")
              .matcher(sample)
              .find()) {
        used.computeIfAbsent(m.group(1), k -> new java.util.TreeSet<>()).add(m.group(2));
      }
    }
    if (used.isEmpty()) {
      return null;
    }
    return "Packages: "
        + used.entrySet().stream()
            .map(
                e ->
                    "`"
                        + e.getKey()
                        + "` ("
                        + e.getValue().stream()
                            .map(n -> "`" + n + "`")
                            .collect(Collectors.joining(", "))
                        + ")")
            .collect(Collectors.joining("; "))
        + ".";
  }

  private static String region(String file, String name) throws IOException {
    Path source = sourceOf(file);
    List<String> lines = Files.readAllLines(source);
    int start = -1;
    for (int i = 0; i < lines.size(); i++) {
      String l = lines.get(i).strip();
      if (l.equals("// region " + name)) {
        start = i + 1;
      } else if (start >= 0 && l.equals("// endregion")) {
        return String.join("\n", lines.subList(start, i));
      }
    }
    throw new AssertionError("no region " + name + " in " + source);
  }

  /** Removes the common indentation and surrounding blank lines. */
  private static String normalize(String text) {
    List<String> lines = text.strip().isEmpty() ? List.of() : List.of(text.split("\n"));
    int indent =
        lines.stream()
            .filter(l -> !l.isBlank())
            .mapToInt(l -> l.length() - l.stripLeading().length())
            .min()
            .orElse(0);
    return lines.stream()
        .map(l -> l.isBlank() ? "" : l.substring(indent).stripTrailing())
        .collect(Collectors.joining("\n"))
        .strip();
  }
}
