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
 * Every Java sample in README.md and docs/ is marked {@code <!-- snippet: File.java#region -->}
 * and must equal that region of compiled code in this module or the Spring Boot example (main or test sources), so the docs cannot drift from the
 * API. An unmarked Java block fails the test.
 */
class DocSnippetsTest {
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
  private static final Pattern BLOCK =
      Pattern.compile("(<!-- snippet: ([\\w/.]+)#([\\w-]+) -->\\s*\\n)?```java\\n(.*?)```", Pattern.DOTALL);

  @Test
  void everyJavaSampleInTheDocsIsCompiledCode() throws IOException {
    List<Path> docs = new ArrayList<>();
    docs.add(ROOT.resolve("README.md"));
    try (Stream<Path> s = Files.walk(ROOT.resolve("docs"))) {
      s.filter(p -> p.toString().endsWith(".md")).forEach(docs::add);
    }
    int checked = 0;
    for (Path doc : docs) {
      Matcher m = BLOCK.matcher(Files.readString(doc));
      while (m.find()) {
        assertThat(m.group(1)).as("Java block without a snippet marker in %s", doc).isNotNull();
        String region = region(m.group(2), m.group(3));
        assertThat(normalize(m.group(4)))
            .as("%s quotes %s#%s", ROOT.relativize(doc), m.group(2), m.group(3))
            .isEqualTo(normalize(region));
        checked++;
      }
    }
    assertThat(checked).isPositive();
  }

  private static String region(String file, String name) throws IOException {
    Path source;
    // This module's sources, and the Spring Boot example's (examples/spring-boot/src).
    try (Stream<Path> s = Files.walk(ROOT.resolve("examples"))) {
      source = s.filter(p -> p.endsWith(file) && ROOT.resolve("examples").relativize(p).toString().matches("(spring-boot/)?src/.*"))
          .findFirst().orElseThrow(
          () -> new AssertionError("no source file " + file));
    }
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
